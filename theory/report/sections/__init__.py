"""Report sections: one module each, discovered by :func:`theory.report.discover_sections`."""
