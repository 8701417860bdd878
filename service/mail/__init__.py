"""Inbound mail: what a player typed in a reply, without quotes, signatures or our text."""
