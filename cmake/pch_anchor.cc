// Anchor source for the shared precompiled header target.
