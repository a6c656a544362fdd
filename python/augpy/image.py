"""augpy.image: batch pipelines (DecodeWarp, Lighting). SCAFFOLD."""
