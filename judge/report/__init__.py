"""Reports: exporters return strings (json_export), the console renders tables
(console).  Only the CLI writes files or streams.
"""
