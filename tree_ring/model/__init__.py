"""The record and what it is made of: fields, vocabularies, canonical JSON and hashes,
validation, identity, the project's location and id, and the errors. Imports nothing of Tree Ring.
"""
