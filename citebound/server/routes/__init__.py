"""The API's routes, one module per area; `app.create_app` includes each module's `router`."""
