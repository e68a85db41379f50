"""Reading files that TextLab did not just write itself — projects, results folders, model folders,
files from another computer — so that a hostile or damaged file gets a message, never a crash, a
write outside its folder or gigabytes of memory: JSON read with bounded size and depth
(``json_reading``), paths kept inside their folder (``paths``), streams read up to a limit
(``bounded``)."""
