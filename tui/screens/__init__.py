"""One module per screen; each `XxxScreen` reads the app's state and renders it."""
