import EdgeNavCLI
