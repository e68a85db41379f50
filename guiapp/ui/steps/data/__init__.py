"""The Data step: its page and the widgets only it uses."""
