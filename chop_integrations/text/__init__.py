"""Text below the engines: token counters (:mod:`.tokens`) and paragraph units with offsets (:mod:`.segmentation`)."""
