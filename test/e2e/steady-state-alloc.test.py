"""Reads the allocation counts noted after each step (count_malloc.c) and
prints how many allocations steps 3..N made, and steps 1 and 2."""
import sys

notes = [int(line) for line in open(sys.argv[1])]
steps = int(sys.argv[2])
if len(notes) < steps:
    sys.exit(f"only {len(notes)} notes for {steps} steps")
steady = notes[steps - 1] - notes[1]
print(f"steps 3-{steps} allocated {steady} times; step 1 {notes[0]}, "
      f"step 2 {notes[1] - notes[0]}")
