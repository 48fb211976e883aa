"""The web page in a real browser: headless Chromium (Debian's `chromium` + `chromium-driver`) driven by
Selenium against a live server. Skipped cleanly when either is missing.

Checks: an answer fills in with each kept claim and its verdict, citations show their highlighted span,
the Verify tab shows verdicts and spans, the Documents tab lists versions and shows a version's text —
and text from documents and questions is never executed (a document and a question full of markup
appear as text; no script of theirs runs, no element of theirs is created)."""

import shutil

import pytest

pytest.importorskip("fastapi")
webdriver = pytest.importorskip("selenium.webdriver")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):
    pytest.skip("chromium and chromium-driver are not installed", allow_module_level=True)

from helpers.server_fixtures import handbook_kb, live_server  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from citebound.kb import KnowledgeBase  # noqa: E402
from citebound.server.app import create_app  # noqa: E402
from citebound.server.settings import ServerSettings  # noqa: E402

PAYLOAD = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser")
    kb_path = handbook_kb(root)
    hostile = root / "hostile"
    hostile.mkdir()
    (hostile / "xss.txt").write_text(f"The loyalty card costs nine euros a year {PAYLOAD} and never expires.\n")
    with KnowledgeBase.open(kb_path) as kb:
        kb.ingest([hostile], progress=False, embed=True)
    with live_server(create_app(kb_path, ServerSettings(rate_limit=0))) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,1600"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def wait(browser, css, timeout=60):
    return WebDriverWait(browser, timeout).until(EC.presence_of_element_located((By.CSS_SELECTOR, css)))


def test_an_answer_fills_in_with_verdicts_and_highlighted_spans(browser, base_url):
    browser.get(base_url + "/")
    browser.find_element(By.ID, "question").send_keys("How much does express delivery cost?")
    browser.find_element(By.ID, "ask-button").click()
    answer = wait(browser, "#answer")
    assert "12 euros" in answer.text
    claims = browser.find_elements(By.CSS_SELECTOR, ".claims .claim")
    assert claims and "supported" in claims[0].text
    mark = browser.find_element(By.CSS_SELECTOR, ".citation mark")
    assert mark.text == "Express delivery arrives the next business day and costs 12 euros."


def test_text_from_documents_and_questions_is_never_executed(browser, base_url):
    browser.get(base_url + "/?q=" + "loyalty%20card%20cost%20" + PAYLOAD.replace("#", "%23"))
    wait(browser, "#answer")
    assert browser.execute_script("return window.__pwned === undefined")
    # the markup from the document is shown as text, and none of its elements exists in the page
    assert "<script>" in browser.find_element(By.ID, "out").text or "onerror" in browser.find_element(By.ID, "out").text
    assert not browser.find_elements(By.CSS_SELECTOR, "#out img, #out script")
    browser.find_element(By.ID, "tab-docs").click()
    button = wait(browser, ".doc .version")
    rows = browser.find_elements(By.CSS_SELECTOR, ".doc")
    hostile = next(r for r in rows if "xss.txt" in r.text)
    hostile.find_element(By.CSS_SELECTOR, ".version").click()
    text = wait(browser, "#doc-text")
    WebDriverWait(browser, 30).until(lambda b: "loyalty card" in b.find_element(By.ID, "doc-text").text)
    assert "<img src=x" in browser.find_element(By.ID, "doc-text").text and button is not None
    assert not browser.find_elements(By.CSS_SELECTOR, "#doc-view img, #doc-view script")
    assert browser.execute_script("return window.__pwned === undefined") and text is not None


def test_verify_tab_shows_verdicts_and_spans(browser, base_url):
    browser.get(base_url + "/")
    browser.find_element(By.ID, "tab-verify").click()
    browser.find_element(By.ID, "verify-answer").send_keys("Refunds take five business days [1]. Shipping is free [2].")
    browser.find_element(By.ID, "verify-sources").send_keys(
        "1: Refunds take five business days.\n2: Standard shipping costs 4.90 euros.")
    browser.find_element(By.ID, "verify-run").click()
    wait(browser, ".verdict")
    verdicts = browser.find_elements(By.CSS_SELECTOR, ".verdict")
    assert "supported" in verdicts[0].text and "unsupported" in verdicts[1].text
    assert verdicts[0].find_element(By.CSS_SELECTOR, "mark").text == "Refunds take five business days."
