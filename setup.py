"""Package list for setuptools (everything else is in pyproject.toml).

``resources/`` is the source of truth for bundled files; it is installed as the package
``guiapp_resources`` so a wheel carries the example study, its licence and the icons.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["guiapp", "guiapp.*"]),
              "guiapp_resources", "guiapp_resources.example", "guiapp_resources.icons"],
    package_dir={"guiapp_resources": "resources"},
)
