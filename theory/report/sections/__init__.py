"""Report sections: one module each, discovered by :func:`semiprivate.theory.report.discover_sections`."""
