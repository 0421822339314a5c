"""Game-independent helpers shared by every game package: errors, card-data loading, seeding.

Nothing here imports PettingZoo or Gymnasium; the rules engines stand on this package alone.
"""
