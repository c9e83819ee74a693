"""The referee at the table: the one place where camera readings become game steps.

It sits between the frame sources, the board reader, the rules engines, the journal and the
screen. Rules and vision stay pure and never import it. The session (:mod:`.session`) is
UI-neutral: it emits events (state, question, warning, game over) and takes answers; the kiosk
and ``companion referee`` are two front ends of it.
"""
