"""TextLab's bundled resources (example study with licence and provenance, icons).

In a checkout this folder is ``resources/``; the wheel installs it as the package
``guiapp_resources`` (see pyproject.toml), where ``guiapp.core.locations.resources_dir`` finds it.
"""
