"""``judge doctor``: what this machine can do, and how to fix what it cannot (docs/doctor.md)."""
