"""The agents' session stores: where each agent keeps its sessions, and the guard that
keeps every output out of them."""
