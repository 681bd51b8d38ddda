"""A table's domain beside the rules: its streams, its own events and chat,
the views it shows, its life, and the codec of every stored event."""
