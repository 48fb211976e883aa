"""Run: .venv/bin/python docs/integrations/examples/langchain_example.py   (needs langchain-core)

`fake_rag` stands in for your chain (retriever | prompt | llm): anything that ends in a dict with the
question, the answer (a string or a chat message) and the documents it was generated from."""

from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda

from citebound.integrations.langchain import CiteboundVerifier

docs = [Document(page_content="Refunds are processed within five business days after the item arrives."),
        Document(page_content="Express delivery arrives the next business day and costs 12 euros.")]


def fake_rag(question: str) -> dict:
    return {"question": question, "documents": docs,
            "answer": AIMessage(content="Express delivery costs 12 euros [2]. It arrives within two hours [2].")}


chain = RunnableLambda(fake_rag) | CiteboundVerifier()          # CiteboundVerifier("full") for the model
out = chain.invoke("How fast and how expensive is express delivery?")
print(out["answer"])            # Express delivery costs 12 euros [2].
print(out["faithfulness"])      # 0.5
for claim in out["claims"]:
    print(claim["label"], claim["claim"], "|", claim["reason"])
