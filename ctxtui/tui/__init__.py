"""The Textual shell: renders a ``Plan`` and dispatches the user's actions to the core."""
