"""Projectors: pure folds of the event stream into read models, and the
runner that keeps each read model and its checkpoint in one transaction."""
