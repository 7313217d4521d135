"""The grader corpus: answers written the way real models write them, each labelled pass or fail by a person.

Every task has a file of cases (``tests/corpus/<module>/<task_id>.yaml``). A case is a whole scripted
conversation (the model's replies in order), replayed through the real runner against a loopback server, so
what is measured is the verdict a real run would record. ``sllmb graders`` prints, per module, how many
cases the graders get wrong in each direction; the methodology publishes that table.
"""
