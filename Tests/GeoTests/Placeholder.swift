// Placeholder so the test target builds before its tests land; delete when adding real tests.
