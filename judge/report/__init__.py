"""Reports: exporters return strings (json_export, junit, markdown); renderers return
rich tables or markup lines, or draw on the console they are given (console,
benchmark_table, ranking_tables, grade_table, challenge_views, progress,
watch_view, validation).  None opens a file of its own, except plots.py's
charts at the path given.
"""
