// Placeholder so the target builds before its code lands; delete when adding real sources.
