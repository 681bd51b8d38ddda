"""The table service: hosted online play over HTTP and WebSocket."""
