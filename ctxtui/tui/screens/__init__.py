"""The app's screens: the main view and the modal dialogs pushed over it."""
