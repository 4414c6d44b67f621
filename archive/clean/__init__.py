"""Cleaning: the job predicates, rules as SQL files, recipes, binding
parameters into a rule, building a version as a chain of views with every
decision recorded, comparing versions, provenance and publishing."""
