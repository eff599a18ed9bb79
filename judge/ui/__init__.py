"""``judge ui``: a local browser workspace over the same judge as the CLI (docs/ui.md).

Optional: it needs the ``ui`` extra (Flask).  ``app.py`` is the web application,
``guard.py`` (*pure*) the safety rules of every request, ``workspace.py`` the
draft files, ``pages.py`` what the catalogue and a challenge's page show,
``judgements.py`` one judgement at a time in a background thread, streamed.
"""
