import Foundation
import Geo
import RoadGraph
import Routing

/// `GMSNavigatorListener` and `GMSRoadSnappedLocationProviderListener` in one protocol. Every method is optional
/// (empty defaults below). Each receives an immutable event value carrying the time of the fix or input behind it.
public protocol NavigatorListener: AnyObject {
    func navigator(_ navigator: Navigator, didArriveAt event: ArrivalEvent)
    func navigator(_ navigator: Navigator, didChangeRoute event: RouteChangedEvent)
    func navigator(_ navigator: Navigator, didUpdateRemainingTime event: RemainingTimeEvent)
    func navigator(_ navigator: Navigator, didUpdateRemainingDistance event: RemainingDistanceEvent)
    func navigator(_ navigator: Navigator, didUpdateDelayCategory event: DelayCategoryEvent)
    func navigator(_ navigator: Navigator, didChangeSuggestedLightingMode event: LightingEvent)
    /// Percentage above the limit (0 not speeding, -1 unknown) and the speed alert severity.
    func navigator(_ navigator: Navigator, didUpdateSpeeding event: SpeedingEvent)
    /// The road-snapped location provider's `didUpdateLocation`.
    func navigator(_ navigator: Navigator, didUpdateSnappedLocation event: SnappedLocationEvent)
}

extension NavigatorListener {
    public func navigator(_ navigator: Navigator, didArriveAt event: ArrivalEvent) {}
    public func navigator(_ navigator: Navigator, didChangeRoute event: RouteChangedEvent) {}
    public func navigator(_ navigator: Navigator, didUpdateRemainingTime event: RemainingTimeEvent) {}
    public func navigator(_ navigator: Navigator, didUpdateRemainingDistance event: RemainingDistanceEvent) {}
    public func navigator(_ navigator: Navigator, didUpdateDelayCategory event: DelayCategoryEvent) {}
    public func navigator(_ navigator: Navigator, didChangeSuggestedLightingMode event: LightingEvent) {}
    public func navigator(_ navigator: Navigator, didUpdateSpeeding event: SpeedingEvent) {}
    public func navigator(_ navigator: Navigator, didUpdateSnappedLocation event: SnappedLocationEvent) {}
}

/// `GMSNavigator` in Swift idiom: a thin driver over `NavigatorCore` that hands each event to the listeners.
/// Listeners are held weakly, as the SDK does.
public final class Navigator {
    public let core: NavigatorCore
    private var listeners: [WeakListener] = []

    private struct WeakListener {
        weak var listener: (any NavigatorListener)?
    }

    public init(core: NavigatorCore) { self.core = core }

    public convenience init(
        graph: RoadGraph, snapper: (any RoadSnappingProvider)? = nil,
        placeResolver: (any PlaceResolving)? = nil,
        configuration: NavigatorConfiguration = NavigatorConfiguration()
    ) {
        self.init(
            core: NavigatorCore(
                graph: graph, snapper: snapper, placeResolver: placeResolver, configuration: configuration))
    }

    public func add(listener: any NavigatorListener) {
        listeners.removeAll { $0.listener == nil || $0.listener === listener }
        listeners.append(WeakListener(listener: listener))
    }

    public func remove(listener: any NavigatorListener) {
        listeners.removeAll { $0.listener == nil || $0.listener === listener }
    }

    // MARK: Properties

    public var travelMode: TravelMode {
        get { core.travelMode }
        set { core.travelMode = newValue }
    }
    public var avoidsHighways: Bool {
        get { core.avoidsHighways }
        set { core.avoidsHighways = newValue }
    }
    public var avoidsTolls: Bool {
        get { core.avoidsTolls }
        set { core.avoidsTolls = newValue }
    }
    public var avoidsFerries: Bool {
        get { core.avoidsFerries }
        set { core.avoidsFerries = newValue }
    }
    public var stopGuidanceAtArrival: Bool {
        get { core.stopGuidanceAtArrival }
        set { core.stopGuidanceAtArrival = newValue }
    }
    /// Seconds; default 1.
    public var timeUpdateThreshold: Double {
        get { core.timeUpdateThresholdSeconds }
        set { core.timeUpdateThresholdSeconds = newValue }
    }
    /// Metres; default 1.
    public var distanceUpdateThreshold: Double {
        get { core.distanceUpdateThresholdMeters }
        set { core.distanceUpdateThresholdMeters = newValue }
    }
    public var speedAlertOptions: SpeedAlertOptions {
        get { core.speedAlertOptions }
        set { core.speedAlertOptions = newValue }
    }
    public var isGuidanceActive: Bool { core.isGuidanceActive }
    public var routeLegs: [RouteLegSummary] { core.routeLegs }
    public var currentRouteLeg: RouteLegSummary? { core.currentRouteLeg }
    public var traveledPath: [Coordinate] { core.traveledPath }
    public var timeToNextDestination: Double { core.timeToNextDestination }
    public var distanceToNextDestination: Double { core.distanceToNextDestination }
    public var delayCategoryToNextDestination: DelayCategory { core.delayCategoryToNextDestination }
    public var suggestedLightingMode: LightingMode? { core.suggestedLightingMode }

    // MARK: Commands

    @discardableResult
    public func setDestinations(
        _ waypoints: [NavigationWaypoint], options: DestinationOptions = DestinationOptions(),
        at time: Date
    ) -> RouteStatus {
        let (status, events) = core.setDestinations(waypoints, options: options, at: time)
        deliver(events)
        return status
    }

    public func clearDestinations(at time: Date) { deliver(core.clearDestinations(at: time)) }

    @discardableResult
    public func continueToNextDestination(at time: Date) -> ResolvedWaypoint? {
        let (waypoint, events) = core.continueToNextDestination(at: time)
        deliver(events)
        return waypoint
    }

    public func setGuidanceActive(_ active: Bool, at time: Date) { deliver(core.setGuidanceActive(active, at: time)) }

    public func updateTraffic(_ observations: [TrafficObservation], at time: Date) {
        deliver(core.updateTraffic(observations, at: time))
    }

    /// A raw fix from the location source.
    public func process(_ fix: RawFix) { deliver(core.process(fix)) }

    private func deliver(_ events: [NavigationEvent]) {
        let targets = listeners.compactMap(\.listener)
        for event in events {
            for l in targets {
                switch event {
                case .arrival(let e): l.navigator(self, didArriveAt: e)
                case .routeChanged(let e): l.navigator(self, didChangeRoute: e)
                case .remainingTime(let e): l.navigator(self, didUpdateRemainingTime: e)
                case .remainingDistance(let e): l.navigator(self, didUpdateRemainingDistance: e)
                case .delayCategory(let e): l.navigator(self, didUpdateDelayCategory: e)
                case .lighting(let e): l.navigator(self, didChangeSuggestedLightingMode: e)
                case .speeding(let e): l.navigator(self, didUpdateSpeeding: e)
                case .location(let e): l.navigator(self, didUpdateSnappedLocation: e)
                }
            }
        }
    }
}

/// One input to a navigator, for replaying a recorded session (the `edgenav replay` tool) and for tests.
public enum NavigationInput: Sendable {
    case fix(RawFix)
    case setDestinations([NavigationWaypoint], DestinationOptions, at: Date)
    case continueToNextDestination(at: Date)
    case clearDestinations(at: Date)
    case setGuidanceActive(Bool, at: Date)
    case traffic([TrafficObservation], at: Date)
}

extension NavigatorCore {
    /// Applies one input and returns its events.
    public func apply(_ input: NavigationInput) -> [NavigationEvent] {
        switch input {
        case .fix(let fix): process(fix)
        case .setDestinations(let waypoints, let options, let time):
            setDestinations(waypoints, options: options, at: time).events
        case .continueToNextDestination(let time): continueToNextDestination(at: time).events
        case .clearDestinations(let time): clearDestinations(at: time)
        case .setGuidanceActive(let active, let time): setGuidanceActive(active, at: time)
        case .traffic(let observations, let time): updateTraffic(observations, at: time)
        }
    }

    /// Applies inputs in order and collects every event as values.
    public func replay(_ inputs: some Sequence<NavigationInput>) -> [NavigationEvent] {
        var events: [NavigationEvent] = []
        for input in inputs { events += apply(input) }
        return events
    }
}
