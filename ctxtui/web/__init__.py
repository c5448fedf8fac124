"""ctxtui serve's web server: the app in a browser, guarded (docs/safety.md)."""
