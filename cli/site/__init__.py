"""The archive as a static web site (`wla site`): a catalog page, a page per
log and per version, their figures, the published files and provenance;
every page works from a folder opened in a browser, with nothing fetched
from the network. `build_site` (build.py) is the Python face."""
