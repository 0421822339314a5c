"""PettingZoo front doors (AEC and parallel) over the games' rules engines."""
