import EdgeNavCLI
import Foundation

exit(EdgeNavCommandLine.main(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
