"""The event bus: NATS JetStream as a delivery channel for stored events."""
