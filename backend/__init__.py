"""drivelab: review-lab SSD test orchestration."""

__version__ = "0.1.0"
