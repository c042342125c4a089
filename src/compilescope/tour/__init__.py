"""The tour (issue: `compilescope tour`): the lab's nine lessons, run for real on the user's
machine, each explained with the figures just measured.

Built so far: the lesson programs (lessons/), running one in its own process (run.py), each
lesson's facts from that run (facts.py), and the texts in English, Chinese and Thai
(messages.py). Not yet: the command, its terminal, HTML and JSON output.
"""
