"""The event bus: NATS JetStream as a delivery channel for stored events."""

#: The relay's name as a reader of the store (its checkpoint): here, not in
#: muggins.bus.relay, so that what reports the relay's lag (the service's
#: metrics, which the operator's commands import) need not import NATS's client.
RELAY_READER = "bus-relay"
