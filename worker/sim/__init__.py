"""Simulated drives with a known answer: a loop device over a tmpfs file whose speed the
kernel's block throttle shapes from a profile (worker.sim.profile), run by a controller
process (worker.sim.controller). See README "Simulated drives"."""
