"""Mnemosyne: carry an AI conversation from one tool to another."""

__version__ = "0.1.0"
