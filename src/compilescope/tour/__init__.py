"""The tour (issue: `compilescope tour`): the lab's nine lessons, run for real on the user's
machine, each explained with the figures just measured.

The lesson programs (lessons/), running one in its own process (run.py), each lesson's facts
from that run (facts.py), the texts in English, Chinese and Thai (messages.py), the lessons'
plan (plan.py: programs, texts, views) and the page (page.py); the command is cli/tour.py.
"""
