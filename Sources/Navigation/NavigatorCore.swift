import Foundation
import Geo
import RoadGraph
import Routing

/// The navigator as a deterministic state machine: every input (a fix, a command, a traffic update) carries its
/// time and returns the events it caused, in order. No clock, no I/O. `Navigator` adds listeners on top.
public final class NavigatorCore {
    public let graph: RoadGraph
    public let router: Router
    public let snapper: any RoadSnappingProvider
    public let placeResolver: (any PlaceResolving)?
    public let configuration: NavigatorConfiguration

    // MARK: Settings (GMSNavigator properties)

    public var travelMode: TravelMode = .driving
    public var avoidsHighways = false
    public var avoidsTolls = false
    /// Default true, as in the SDK.
    public var avoidsFerries = true
    /// Guidance stops on arrival. Default true.
    public var stopGuidanceAtArrival = true
    /// Minimum change of the remaining time before another event, seconds. Default 1.
    public var timeUpdateThresholdSeconds: Double = 1
    /// Minimum change of the remaining distance before another event, metres. Default 1.
    public var distanceUpdateThresholdMeters: Double = 1
    public var speedAlertOptions = SpeedAlertOptions.standard

    // MARK: State

    public private(set) var isGuidanceActive = false
    /// Remaining destinations, the current one first.
    public private(set) var destinations: [ResolvedWaypoint] = []
    private var legs: [RouteLeg] = []
    private var progress: LegProgress?
    public private(set) var traffic: TrafficModel
    public private(set) var lastSnapped: SnappedFix?
    public private(set) var traveledPath: [Coordinate] = []
    public private(set) var suggestedLightingMode: LightingMode?
    public private(set) var delayCategoryToNextDestination: DelayCategory = .noData

    /// The trip's own pace so far: seconds driven on the route, and the model's seconds for the progress made.
    /// Split (see `NavigatorConfiguration.paceSplitsStops`): seconds of that moving (fix speed at least
    /// `ownSpeedMinimumMetersPerSecond`), and the model's road seconds (no junction delays) for the progress made.
    private var pace = (elapsedSeconds: 0.0, modelSeconds: 0.0, movingSeconds: 0.0, roadModelSeconds: 0.0)
    /// Where the progress estimate stood along the leg when the vehicle last came to a stop (metres), for the
    /// remaining time while it stands (`standingEtaProgressMeters`); nil while it moves.
    private var standingEtaAlong: Double?
    private var offRouteEvidence = 0
    /// CUSUM of the raw fixes' distance from the leg while the matcher finds another road likelier (see
    /// `divergenceThreshold`).
    private var divergence = 0.0
    /// The evidence of leaving the time share has granted during the current stand, in fixes' worth, and what this
    /// fix may still take (see `NavigatorConfiguration.standingEvidenceLimit`; infinite while moving).
    private var standingEvidenceSpent = 0.0
    private var standingEvidenceAllowance = Double.infinity
    /// The vehicle, by its fixes' own speed, has stood since it stopped with no evidence of leaving counted (see
    /// `NavigatorConfiguration.standingKeepsRoute`).
    private var standingOnRoute = false
    /// The mean position of the current run of standing fixes (see `checkArrival`); nil while moving.
    private var standing: (latitude: Double, longitude: Double, count: Int)?
    private var lastReportedSeconds: Double?
    private var lastReportedMeters: Double?
    private var speeding: SpeedingMonitor
    private var ownSpeed: Double?
    /// Snapped positions of about the last `derivedSpeedBaselineSeconds`, for a speed when the fixes carry none.
    private var recentPositions: [(time: Date, coordinate: Coordinate)] = []
    private var ownWay: (id: Int64, movingSeconds: Double, movingMeters: Double)?
    /// The latest fix that was no position jump from the one consistent before it (see `consistentReference`).
    private var lastConsistentFix: SnappedFix?
    /// The fix before `lastSnapped`.
    private var fixBeforeLast: SnappedFix?
    /// Seconds between the fix before the previous one and the previous one (see `fixOrDerivedSpeed`).
    private var previousIntervalSeconds: Double?
    private var lastFasterRouteCheck: Date?
    /// The last GPS gap between two fixes of at least `arrivalAfterGapMinimumSeconds`, or of `sparseFixSeconds` with
    /// `arrivalAfterSparseInterval` (see `checkPassedDuringGap`).
    private var lastFixGap: (start: Date, end: Date, startOnRoute: Bool)?
    /// The time of the fix that ended a gap and showed the vehicle on the next leg, awaiting the fix after it
    /// (`arrivalAfterGapConfirmed`).
    private var gapArrivalAwaitingConfirmation: Date?
    private var checkedFeedGeneration = 0
    /// The course of a fix without one, from the last few raw positions (see `PositionCourseConfiguration`).
    private var positionCourse: PositionCourseEstimator
    /// That course for the latest fix, when it carries none and its positions show one.
    private var derivedCourse: Double?

    public init(
        graph: RoadGraph, router: Router? = nil, snapper: (any RoadSnappingProvider)? = nil,
        placeResolver: (any PlaceResolving)? = nil, configuration: NavigatorConfiguration = NavigatorConfiguration()
    ) {
        self.graph = graph
        self.router = router ?? Router(graph: graph)
        self.snapper = snapper ?? NearestRoadSnapper(graph: graph)
        self.placeResolver = placeResolver
        self.configuration = configuration
        traffic = TrafficModel(configuration: configuration.traffic)
        speeding = SpeedingMonitor(configuration: configuration.speeding)
        positionCourse = PositionCourseEstimator(
            configuration: configuration.positionCourse, sigmaPerAccuracy: configuration.derivedSpeedSigmaPerAccuracy,
            defaultAccuracyMeters: configuration.defaultHorizontalAccuracyMeters,
            minimumSpeedMetersPerSecond: configuration.minimumSpeedForCourseMetersPerSecond)
    }

    /// Progress along the current leg.
    struct LegProgress {
        var route: ActiveLeg
        var time: LegTimeModel
        /// Filtered distance along the leg, metres, and speed along it, m/s, at `updatedAt`.
        var along: Double
        var velocity: Double
        var updatedAt: Date
        var rejected = 0
        var arrived = false
        /// `velocity` is the speed the fix at `updatedAt` reported itself (not the filter's, derived from positions).
        var velocityReported = false
        /// The latest measurement the gate rejected (metres along the leg), its time and the fix's own speed (m/s, 0
        /// without one); nil once a measurement is taken.
        var lastRejected: (along: Double, time: Date, speed: Double)?
        /// The latest accepted measurement along the leg, metres.
        var lastMeasurement: Double
        /// The leg began with the vehicle standing (at the origin, at a waypoint): see `settlingMeters`.
        var startedStanding = false
        /// A fix off the leg came from a moving vehicle: it has driven away from where the leg starts, so standing
        /// off the leg now is no longer waiting to start it (see `isOffRoute`).
        var movedOffLeg = false
        /// The leg's start was checked against the course of the first positions that could show one (see
        /// `PositionCourseConfiguration.decidesWrongWayAtLegStart`).
        var startCourseChecked = false
        /// Where the previous leg ended, when this leg was kept as planned on arriving there: the router may start
        /// the next leg elsewhere (from the nearest road of the main network when the waypoint has no way out), and
        /// until the vehicle has made progress on this leg, being near there is not leaving it.
        var previousLegEnd: Coordinate?
        /// The open "route or branch" tests at the junctions around the progress.
        var branches: JunctionBranchTest
        /// The latest raw fixes without a speed that were no position jump and lay within the leg's raw corridor, as
        /// their time and straight-line distance to the leg's end, metres: the positions-only vehicle's track (see
        /// `arrivalCoastingTrackSeconds`).
        var rawTrack: [(time: Date, along: Double)] = []
    }

    // MARK: Reading the route

    /// One leg per remaining destination; the current leg starts at the route's origin or last reroute.
    public var routeLegs: [RouteLegSummary] {
        legs.enumerated().map { i, leg in
            summary(leg, destination: destinations[i], time: i == 0 ? progress?.time : nil)
        }
    }
    public var currentRouteLeg: RouteLegSummary? { routeLegs.first }
    /// The routed legs still ahead, as the router made them (for the location simulator and tools).
    public var remainingRouteLegs: [RouteLeg] { legs }

    /// Seconds to the next destination; `.infinity` without a route.
    public var timeToNextDestination: Double {
        guard let p = progress else { return .infinity }
        return p.arrived ? 0 : remaining(p).seconds
    }
    /// Metres to the next destination; `.infinity` without a route.
    public var distanceToNextDestination: Double {
        guard let p = progress else { return .infinity }
        return p.arrived ? 0 : remaining(p).meters
    }

    /// The off-route divergence sum so far (see `NavigatorConfiguration.divergenceThreshold`), for diagnostics.
    public var offRouteDivergence: Double { divergence }

    /// The largest log-likelihood ratio of a branch over the route among the open junction tests (see
    /// `NavigatorConfiguration.junctionBranches`), for diagnostics; nil when none is open.
    public var offRouteBranchLogOdds: Double? { progress?.branches.largestLogLikelihoodRatio }

    /// The current leg as handed to the road-snapping provider.
    public var activeLeg: ActiveLeg? { progress?.route }

    // MARK: Commands

    /// Replaces the destinations and routes from the last snapped position. Returns the status and the events
    /// (a route change with reason `destinationsSet`, also on failure, carrying the status).
    public func setDestinations(
        _ waypoints: [NavigationWaypoint], options: DestinationOptions = DestinationOptions(),
        at time: Date
    ) -> (status: RouteStatus, events: [NavigationEvent]) {
        let (status, resolved) = resolve(waypoints)
        var events: [NavigationEvent] = []
        guard status == .ok else {
            dropRoute()
            events.append(
                .routeChanged(
                    RouteChangedEvent(
                        timestamp: time, reason: .destinationsSet, routeStatus: status,
                        currentLegIndex: nil, distanceMeters: 0, durationSeconds: 0, legs: [])))
            events += delayEvents(at: time)
            return (status, events)
        }
        traveledPath = []
        pace = (0, 0, 0, 0)
        snapper.reset()
        let result = route(to: resolved, at: time)
        guard let newLegs = result.legs else {
            dropRoute()
            events.append(
                .routeChanged(
                    RouteChangedEvent(
                        timestamp: time, reason: .destinationsSet, routeStatus: result.status,
                        currentLegIndex: nil, distanceMeters: 0, durationSeconds: 0, legs: [])))
            events += delayEvents(at: time)
            return (result.status, events)
        }
        install(legs: newLegs, destinations: resolved, at: time)
        if options.startsGuidance { isGuidanceActive = true }
        events.append(.routeChanged(routeChangedEvent(.destinationsSet, at: time)))
        events += progressEvents(at: time)
        return (.ok, events)
    }

    /// Removes the route and stops guidance.
    public func clearDestinations(at time: Date) -> [NavigationEvent] {
        let hadRoute = progress != nil
        dropRoute()
        pace = (0, 0, 0, 0)
        snapper.reset()
        traveledPath = []
        guard hadRoute else { return [] }
        var events: [NavigationEvent] = [
            .routeChanged(
                RouteChangedEvent(
                    timestamp: time, reason: .cleared, routeStatus: .ok, currentLegIndex: nil,
                    distanceMeters: 0, durationSeconds: 0, legs: []))
        ]
        events += delayEvents(at: time)
        return events
    }

    /// Moves to the next destination: the reached one is forgotten (read it before). Routes from the last snapped
    /// position; guidance resumes if arrival had stopped it. Returns the new current waypoint (nil when none is left,
    /// and then nothing changes).
    public func continueToNextDestination(at time: Date) -> (waypoint: ResolvedWaypoint?, events: [NavigationEvent]) {
        guard destinations.count > 1 else { return (nil, []) }
        let remaining = Array(destinations.dropFirst())
        let wasArrived = progress?.arrived ?? false
        let planned = Array(legs.dropFirst())
        var result: (status: RouteStatus, legs: [RouteLeg]?) = (.ok, planned)
        // At the waypoint the planned next leg already starts here, leaving in the arrival direction: keep it
        // (re-routing from a standing vehicle, which has no heading, could turn the trip around). Elsewhere the
        // next leg starts at the last road-snapped position.
        let near = { (point: Coordinate) in
            self.lastSnapped.map {
                Geodesy.distanceMeters($0.coordinate, point) <= 2 * self.configuration.arrivalRadiusMeters
            } ?? false
        }
        // Arrived where the finished leg ends, the plan stands too, even when the router starts the next leg
        // elsewhere for this waypoint (the other side of a divided road): re-routing from a vehicle still rolling
        // to a stop would route it round the block from where it happens to be.
        let finishedEnd = legs[0].end.point
        let atFinishedEnd = wasArrived && near(finishedEnd)
        if !near(planned[0].start.point) && !atFinishedEnd {
            result = route(to: remaining, at: time)
        }
        // No route from here: keep the remaining legs as planned (the next fixes reroute when off them).
        install(legs: result.legs ?? planned, destinations: remaining, at: time)
        if atFinishedEnd { progress?.previousLegEnd = finishedEnd }
        if wasArrived { isGuidanceActive = true }
        var events: [NavigationEvent] = [
            .routeChanged(routeChangedEvent(.nextDestination, at: time, status: result.status))
        ]
        events += progressEvents(at: time)
        return (destinations.first, events)
    }

    /// `isGuidanceActive = …`: guidance needs a route; turning it on reports the remaining time and distance afresh.
    public func setGuidanceActive(_ active: Bool, at time: Date) -> [NavigationEvent] {
        guard active != isGuidanceActive else { return [] }
        if active {
            guard progress != nil else { return [] }
            isGuidanceActive = true
            lastReportedSeconds = nil
            lastReportedMeters = nil
            return progressEvents(at: time)
        }
        isGuidanceActive = false
        return []
    }

    /// Feeds traffic observations (per OSM way). Returns a delay category change when it causes one.
    public func updateTraffic(_ observations: [TrafficObservation], at time: Date) -> [NavigationEvent] {
        traffic.update(observations)
        guard var p = progress else { return [] }
        p.time.applyTraffic(traffic, graph: graph, mode: travelMode, at: time)
        progress = p
        return delayEvents(at: time)
    }

    // MARK: Fixes

    /// One raw fix in, its events out. Fixes older than the previous one and invalid coordinates are ignored.
    public func process(_ fix: RawFix) -> [NavigationEvent] {
        guard fix.coordinate.isValid else { return [] }
        if let last = lastSnapped, fix.timestamp < last.timestamp { return [] }
        let time = fix.timestamp
        let positionsCourse = fix.courseDegrees == nil ? positionCourse.add(fix)?.courseDegrees : nil
        // A fix with a speed but no course is from a receiver that drops the course when slow (below 1–2 m/s): its
        // positions' scatter is no course either.
        derivedCourse =
            (fix.speedMetersPerSecond ?? .infinity) >= configuration.minimumSpeedForCourseMetersPerSecond
            ? positionsCourse : nil
        let previous = lastSnapped
        let beforePrevious = fixBeforeLast
        fixBeforeLast = previous
        previousIntervalSeconds = previous.flatMap { p in
            beforePrevious.map { p.timestamp.timeIntervalSince($0.timestamp) }
        }
        if var p = progress {
            // The search window's hint carries the filter's own speed only: a hint ahead of the vehicle loses it
            // (the window reaches less far behind than ahead), and each fix off the leg then carries it farther.
            p.route.progressMeters = predictedAlong(p, at: time)
            // Without the fix's own speed nothing tells the filter the vehicle stopped: the window reaches back to
            // the last accepted position (see `ActiveLeg.progressSlackBehindMeters`).
            p.route.progressSlackBehindMeters =
                fix.speedMetersPerSecond == nil ? max(0, p.route.progressMeters - p.along) : 0
            let unseen = time.timeIntervalSince(p.updatedAt) - configuration.progressSlackAfterSeconds
            p.route.progressSlackMeters = max(0, unseen) * configuration.progressSlackSpeedMetersPerSecond
            // With it, after a gap the window reaches back as far as it reaches on, up to the last accepted position,
            // with the along-leg preference for the prediction kept (see `ActiveLeg.progressReachBehindMeters`):
            // unseen, the vehicle may have slowed (SUMO Kouvola probe23 with recorded-drive noise at 5 s: 15 s unseen
            // at 28 m/s, the first fix after the gap about 240 m behind the prediction: `KouvolaOutageTests`).
            // Ordinary 5 s intervals have no slack, so no change there.
            p.route.progressReachBehindMeters =
                fix.speedMetersPerSecond == nil
                ? 0 : min(max(0, p.route.progressMeters - p.along), p.route.progressSlackMeters)
            progress = p
        }
        let snapped = snapper.snap(fix, activeLeg: progress?.route)
        lastSnapped = snapped
        let gapSeconds =
            configuration.arrivalAfterSparseInterval
            ? min(configuration.arrivalAfterGapMinimumSeconds, configuration.sparseFixSeconds)
            : configuration.arrivalAfterGapMinimumSeconds
        if let previous, configuration.arrivalAfterGapMinimumSeconds > 0,
            time.timeIntervalSince(previous.timestamp) >= gapSeconds
        {
            // The interval starts on the route when its first fix was on it, or was one fix off it (an outlier where
            // the vehicle passed the waypoint at speed: SUMO Kouvola at 18 vehicles/h/km, probe23 at 5 s) right
            // after one on it, the same pair the passing-through rule falls back to.
            let startOnRoute = previous.isOnRoute || beforePrevious?.isOnRoute == true
            lastFixGap = (previous.timestamp, time, startOnRoute)
        }
        // Without the fix's own speed, two estimates: the straight-line speed over 20 s of positions (never high
        // from noise) for speeding alerts, and the matcher's speed along the road for everything else (it follows a
        // vehicle pulling away or braking within seconds, where the 20 s one lags: on SUMO drives with speed and
        // course removed it read half the true speed or less on 18–31 % of moving fixes, the matcher's on 6–10 %).
        let conservativeSpeed = vehicleSpeed(snapped)
        let speed = snapped.fix.speedMetersPerSecond == nil
            ? (snapped.speedMetersPerSecond.flatMap { $0 >= 0 ? $0 : nil } ?? conservativeSpeed) : conservativeSpeed
        updateOwnSpeed(speed, previous: previous, now: time)
        updateStandingEvidence(speed: fix.speedMetersPerSecond ?? speed, since: previous, at: time)
        // Only the fix's own speed says the vehicle stands: a positions-only speed wanders to 2–3 m/s while it does.
        func stands(_ f: RawFix) -> Bool {
            f.speedMetersPerSecond.map { $0 >= 0 && $0 < configuration.offRouteMinimumSpeedMetersPerSecond } ?? false
        }
        if !stands(fix) {
            standingOnRoute = false
        } else if !(previous.map { stands($0.fix) } ?? false) {
            standingOnRoute = offRouteEvidence == 0
        }

        var events: [NavigationEvent] = [
            .location(
                SnappedLocationEvent(
                    timestamp: time, coordinate: snapped.coordinate, altitudeMeters: fix.altitudeMeters,
                    courseDegrees: snapped.courseDegrees ?? fix.courseDegrees, speedMetersPerSecond: speed,
                    horizontalAccuracyMeters: fix.horizontalAccuracyMeters, osmWayID: snapped.osmWayID,
                    roadName: snapped.roadName,
                    isOnRoute: snapped.isOnRoute))
        ]

        if isGuidanceActive { appendTraveled(snapped.coordinate) }

        if var p = progress {
            p.time.applyTraffic(
                traffic, graph: graph, mode: travelMode, at: time,
                refreshSeconds: configuration.trafficRefreshSeconds)
            progress = p
        }
        let reference = consistentReference(for: snapped, previous: previous)
        if var p = progress, !p.arrived {
            let seconds = previous.map { time.timeIntervalSince($0.timestamp) }
            // Passing through is judged from the previous fix, or, when that one was off the route (an outlier
            // just before the waypoint: 2 % of fixes) or shows no passing (its matched position already past the
            // waypoint; the estimate, trailing a vehicle pulling away, too far short of it for one step), from the one
            // before it — unless the fix skipped drove across the leg's end by its own course (a fork taken just
            // before the destination: the line from the fix before it may still cross the waypoint), or this fix is
            // the outlier: it jumped from the fix before, which came on from the one before it without a jump (SUMO
            // Liechtenstein seed 11 probe18 at 5 s: a fix 92 m off the vehicle, matched on the road beyond the
            // destination, was taken as passing it from two fixes back; announced 37 m early).
            // A function: worked out only when the fallback is looked at.
            func thisFixJumped() -> Bool {
                guard configuration.arrivalPassingThroughSkipsJumpedFix, let previous, let beforePrevious else {
                    return false
                }
                return isPositionJump(snapped.fix, previous: previous.fix, seconds: time.timeIntervalSince(previous.timestamp))
                    && !isPositionJump(
                        previous.fix, previous: beforePrevious.fix,
                        seconds: previous.timestamp.timeIntervalSince(beforePrevious.timestamp))
            }
            let passedThrough =
                (previous?.isOnRoute == true ? previous.flatMap { checkPassedThrough(snapped, previous: $0, at: time) } : nil)
                ?? (beforePrevious?.isOnRoute == true && !thisFixJumped()
                    && !(previous.map { drivesAcrossLegEnd($0.fix, previous: beforePrevious?.fix, p.route) } ?? false)
                    ? beforePrevious.flatMap { checkPassedThrough(snapped, previous: $0, at: time) } : nil)
            if let arrival = passedThrough {
                events.append(arrival)  // not off route: past the waypoint, on the way out of it
            } else if let gapArrival = checkPassedDuringGap(snapped, previous: previous, at: time) {
                // Not off route either: on the next leg, after a gap that hid the waypoint (or, awaiting the next
                // fix's word, neither off the route nor progress along it).
                if case .announced(let arrival) = gapArrival { events.append(arrival) }
            } else if let branch = testBranches(snapped, previous: previous, seconds: seconds, speed: speed) {
                offRouteEvidence = 0
                divergence = 0
                if let reroute = reroute(from: snapped, reason: .offRoute, at: time, origin: branch) {
                    events.append(reroute)
                }
            } else if isOffRoute(
                snapped, previous: previous, beforePrevious: beforePrevious, secondsSincePrevious: seconds,
                speed: speed)
            {
                offRouteEvidence = 0
                divergence = 0
                if let reroute = reroute(from: snapped, reason: .offRoute, at: time) { events.append(reroute) }
            } else if snapped.isOnRoute, let match = snapped.routeMatch {
                p = progress!
                let modelBefore = modelRemainingSeconds(p)
                let junctionBefore = p.time.remainingDelaySeconds(atDistance: p.along)
                let movedBefore = p.along > 0
                track(&p, measurement: match.distanceAlongLegMeters, snapped: snapped, speed: speed)
                progress = p
                // The trip's own pace: time spent on the route against the model time of the progress made, from
                // the first movement on each leg (standing at the origin or a waypoint is not driving).
                if movedBefore, let previous {
                    let dt = time.timeIntervalSince(previous.timestamp)
                    if dt > 0 && dt <= configuration.paceMaximumGapSeconds {
                        let modelAfter = modelRemainingSeconds(p)
                        let junctionAfter = p.time.remainingDelaySeconds(atDistance: p.along)
                        pace.elapsedSeconds += dt
                        pace.modelSeconds += max(0, modelBefore - modelAfter)
                        pace.roadModelSeconds += max(0, (modelBefore - junctionBefore) - (modelAfter - junctionAfter))
                        let moving = snapped.fix.speedMetersPerSecond ?? speed ?? 0
                        if moving >= configuration.ownSpeedMinimumMetersPerSecond { pace.movingSeconds += dt }
                    }
                }
                observeOwnTraffic(snapped, speed: speed, previous: previous)
            } else if let fixSpeed = snapped.fix.speedMetersPerSecond, fixSpeed >= 0,
                fixSpeed < configuration.offRouteMinimumSpeedMetersPerSecond
            {
                // A vehicle that says it stands is not moving along the leg either: without this the prediction
                // kept the speed it had when it last matched the leg (arriving at a waypoint whose next leg starts
                // elsewhere) and carried the search window away from it. It stood here now, where the filter left
                // it: the prediction for the next fix starts from now (from the filter's last update, the mean of its
                // speed and a moving fix's would carry a vehicle that stood a minute far ahead).
                progress?.velocity = 0
                progress?.updatedAt = time
            }
            if let arrival = checkArrival(snapped, previousFix: reference?.fix, interval: seconds, at: time) {
                events.append(arrival)
            }
            if let faster = checkFasterRoute(snapped, at: time) { events.append(faster) }
        }
        // Standing by the fix's own speed when it has one (the smoothed speed takes seconds to come down), else by
        // the smoothed one.
        if (fix.speedMetersPerSecond ?? ownSpeed ?? 0) >= configuration.ownSpeedMinimumMetersPerSecond {
            standingEtaAlong = nil
        } else if standingEtaAlong == nil {
            standingEtaAlong = progress?.along
        }
        events += progressEvents(at: time)
        events += delayEvents(at: time)
        if let event = speeding.update(
            speedMetersPerSecond: conservativeSpeed, limitKph: snapped.speedLimitKph, wayID: snapped.osmWayID,
            options: speedAlertOptions, at: time)
        {
            events.append(.speeding(event))
        }
        let elevation = SolarPosition.elevationDegrees(at: fix.coordinate, date: time)
        let mode = configuration.lighting.mode(elevationDegrees: elevation, current: suggestedLightingMode)
        if mode != suggestedLightingMode {
            suggestedLightingMode = mode
            events.append(.lighting(LightingEvent(timestamp: time, mode: mode, sunElevationDegrees: elevation)))
        }
        return events
    }

    // MARK: Routing

    private func resolve(_ waypoints: [NavigationWaypoint]) -> (RouteStatus, [ResolvedWaypoint]) {
        if waypoints.isEmpty { return (.noWaypointsError, []) }
        if waypoints.count > configuration.maximumDestinations { return (.waypointError, []) }
        var resolved: [ResolvedWaypoint] = []
        for (i, w) in waypoints.enumerated() {
            let coordinate: Coordinate
            switch w.location {
            case .coordinate(let c): coordinate = c
            case .placeID(let id):
                guard !id.isEmpty, let c = placeResolver?.coordinate(forPlaceID: id) else {
                    return (.waypointError, [])
                }
                coordinate = c
            }
            guard coordinate.isValid else { return (.waypointError, []) }
            if let heading = w.preferredHeadingDegrees {
                guard heading.isFinite, (0...360).contains(heading), !w.preferSameSideOfRoad else {
                    return (.waypointError, [])
                }
            }
            resolved.append(ResolvedWaypoint(index: i, waypoint: w, coordinate: coordinate))
        }
        return (.ok, resolved)
    }

    private var avoidOptions: AvoidOptions {
        var avoid: AvoidOptions = []
        if avoidsHighways { avoid.insert(.highways) }
        if avoidsTolls { avoid.insert(.tolls) }
        if avoidsFerries { avoid.insert(.ferries) }
        return avoid
    }

    /// Routes from the last snapped position (heading = its course when moving; for a fix without a course, the one
    /// its positions show, see `PositionCourseConfiguration`), or from `originOverride`, to `destinations`.
    private func route(
        to destinations: [ResolvedWaypoint], at time: Date, originOverride: Waypoint? = nil
    ) -> (status: RouteStatus, legs: [RouteLeg]?) {
        guard let here = lastSnapped else { return (.locationUnavailable, nil) }
        var heading: Double?
        if let speed = here.fix.speedMetersPerSecond ?? ownSpeed,
            speed >= configuration.minimumSpeedForCourseMetersPerSecond
        {
            heading = here.fix.courseDegrees ?? here.courseDegrees
        }
        // The matcher's road direction for a positions-only fix follows the road it holds, which after the vehicle
        // left the route (or at a trip's start) may be the one it is leaving: the positions' own course says where
        // it heads (rerouted without it, vehicles leaving the route at the start of a trip were sent back the way
        // they came and rerouted again).
        if here.fix.courseDegrees == nil, let derivedCourse { heading = derivedCourse }
        let origin =
            originOverride
            ?? Waypoint(here.edge == nil ? here.fix.coordinate : here.coordinate, preferredHeadingDegrees: heading)
        let request = RouteRequest(
            origin: origin,
            destinations: destinations.map {
                Waypoint(
                    $0.coordinate, preferSameSideOfRoad: $0.waypoint.preferSameSideOfRoad,
                    preferredHeadingDegrees: $0.waypoint.preferredHeadingDegrees, title: $0.title)
            },
            travelMode: travelMode, avoid: avoidOptions,
            traffic: traffic.snapshot(graph: graph, mode: travelMode, at: time))
        var response = router.route(request)
        if response.status == .noRouteFound && request.origin.preferredHeadingDegrees != nil {
            // The road in the travel direction may lead nowhere (a oneway out of the map): try either direction.
            var either = request
            either.origin.preferredHeadingDegrees = nil
            response = router.route(either)
        }
        guard response.status == .ok, let route = response.route else { return (response.status, nil) }
        return (.ok, route.legs)
    }

    private func install(legs newLegs: [RouteLeg], destinations newDestinations: [ResolvedWaypoint], at time: Date) {
        legs = newLegs
        standingEtaAlong = nil
        checkedFeedGeneration = traffic.feedGeneration  // the new legs were routed with the current feed
        destinations = newDestinations
        offRouteEvidence = 0
        divergence = 0
        lastReportedSeconds = nil
        lastReportedMeters = nil
        ownWay = nil
        guard let first = newLegs.first else {
            progress = nil
            return
        }
        let route = ActiveLeg(leg: first, graph: graph)
        progress = LegProgress(
            route: route, time: timeModel(route, at: time), along: 0, velocity: max(0, ownSpeed ?? 0), updatedAt: time,
            lastMeasurement: 0,
            startedStanding: (ownSpeed ?? 0) < configuration.minimumSpeedForCourseMetersPerSecond,
            branches: JunctionBranchTest(configuration: configuration.junctionBranches))
    }

    private func dropRoute() {
        legs = []
        destinations = []
        progress = nil
        isGuidanceActive = false
        offRouteEvidence = 0
        divergence = 0
        lastReportedSeconds = nil
        lastReportedMeters = nil
    }

    /// The time model of `route` with the configured junction delays and cruise speeds, and the traffic at `time`.
    private func timeModel(_ route: ActiveLeg, at time: Date) -> LegTimeModel {
        var model = LegTimeModel(
            route: route, graph: graph, mode: travelMode, junctions: configuration.junctions,
            speeds: configuration.cruiseSpeeds)
        model.applyTraffic(traffic, graph: graph, mode: travelMode, at: time)
        return model
    }

    private func summary(_ leg: RouteLeg, destination: ResolvedWaypoint, time: LegTimeModel?) -> RouteLegSummary {
        let model =
            time
            ?? timeModel(
                ActiveLeg(leg: leg, graph: graph), at: lastSnapped?.timestamp ?? Date(timeIntervalSince1970: 0))
        return RouteLegSummary(
            destination: destination, destinationCoordinate: leg.end.point, distanceMeters: leg.distanceMeters,
            durationSeconds: model.totalSeconds, geometry: leg.geometry)
    }

    private func routeChangedEvent(_ reason: RouteChangeReason, at time: Date, status: RouteStatus = .ok)
        -> RouteChangedEvent
    {
        let summaries = routeLegs
        return RouteChangedEvent(
            timestamp: time, reason: reason, routeStatus: status, currentLegIndex: destinations.first?.index,
            distanceMeters: summaries.reduce(0) { $0 + $1.distanceMeters },
            durationSeconds: summaries.reduce(0) { $0 + $1.durationSeconds }, legs: summaries)
    }

    /// Reroutes the remaining destinations from the snapped position (or `origin`); nil (route kept) when no route
    /// is found.
    private func reroute(
        from snapped: SnappedFix, reason: RouteChangeReason, at time: Date, origin: Waypoint? = nil
    ) -> NavigationEvent? {
        let remaining = destinations
        let wasArrived = progress?.arrived ?? false
        let result = route(to: remaining, at: time, originOverride: origin)
        guard let newLegs = result.legs else { return nil }
        if reason == .offRoute, let along = alongWhereUnchangedRouteStarts(newLegs, snapped) {
            // The rest of the leg (`offRouteKeepsUnchangedRoute`): the vehicle is where the new route starts.
            progress?.along = along
            progress?.updatedAt = time
            progress?.rejected = 0
            progress?.lastRejected = nil
            return nil
        }
        install(legs: newLegs, destinations: remaining, at: time)
        if wasArrived { progress?.arrived = true }
        return .routeChanged(routeChangedEvent(reason, at: time))
    }

    /// Where along the current leg `newLegs` start, metres, when they are its rest and start well ahead of the
    /// estimate or the vehicle stands (`offRouteKeepsUnchangedRoute`); nil otherwise.
    private func alongWhereUnchangedRouteStarts(_ newLegs: [RouteLeg], _ snapped: SnappedFix) -> Double? {
        guard configuration.offRouteKeepsUnchangedRoute, let p = progress, let first = newLegs.first,
            newLegs.count == legs.count, !first.edges.isEmpty, first.edges.count <= p.route.leg.edges.count,
            p.route.leg.edges.suffix(first.edges.count).elementsEqual(first.edges)
        else { return nil }
        let along = max(0, p.route.lengthMeters - ActiveLeg(leg: first, graph: graph).lengthMeters)
        let stands =
            (snapped.fix.speedMetersPerSecond ?? ownSpeed ?? 0) < configuration.offRouteMinimumSpeedMetersPerSecond
        return along >= p.along + configuration.offRouteUnchangedRouteAheadMeters || stands ? along : nil
    }

    // MARK: Off route

    /// Feeds the fix to the junction branch tests (`NavigatorConfiguration.junctionBranches`), opening those of the
    /// junctions now within reach. Returns where to reroute from (the point of the branch taken nearest the fix,
    /// heading along the branch) when a test decides the vehicle left on a branch. Nothing is added on the first
    /// `settlingMeters` of a leg begun at a standstill (see `isOffRoute`).
    private func testBranches(_ snapped: SnappedFix, previous: SnappedFix?, seconds: Double?, speed: Double?)
        -> Waypoint?
    {
        guard var p = progress else { return nil }
        let dt = max(0, seconds ?? 0)
        let reach = configuration.junctionBranches.lookaheadMeters + p.velocity * dt
        p.branches.advance(
            leg: p.route, progressMeters: p.route.progressMeters, alongMeters: p.along, reachMeters: reach,
            graph: graph, mode: travelMode)
        let settling = p.startedStanding && p.along < configuration.settlingMeters
        var decided: (point: Coordinate, bearingDegrees: Double)?
        let accuracy = snapped.fix.horizontalAccuracyMeters ?? configuration.defaultHorizontalAccuracyMeters
        let jumpSlack = configuration.junctionBranches.jumpSlackAccuracies * accuracy
        if !settling && p.along >= 1
            && !isPositionJump(snapped.fix, previous: previous?.fix, seconds: seconds, slackMeters: jumpSlack)
        {
            decided = p.branches.add(
                snapped.fix, reachedMeters: p.route.progressMeters + reach, estimateMeters: p.along,
                accuracyMeters: accuracy,
                speedMetersPerSecond: snapped.fix.speedMetersPerSecond ?? speed,
                weight: evidenceWeight(speed: speed, seconds: dt))
        }
        progress = p
        return decided.map { Waypoint($0.point, preferredHeadingDegrees: $0.bearingDegrees) }
    }

    /// The fix's own course from a moving vehicle (see `minimumSpeedForCourseMetersPerSecond`).
    private func usableCourse(_ fix: RawFix) -> Double? {
        guard let course = fix.courseDegrees, course >= 0, let speed = fix.speedMetersPerSecond,
            speed >= configuration.minimumSpeedForCourseMetersPerSecond
        else { return nil }
        return course
    }

    /// Hysteresis: consecutive fixes showing the vehicle leaving accumulate evidence, a fix plainly on the route
    /// resets it; wrong way on the route's own road is decisive. What counts (see `NavigatorConfiguration`):
    /// - a fix the snapper puts off the route: 1, or 2 when it is also `strongOffRouteDistanceMeters` from the route
    ///   and its course contradicts the route there (for sparse fixes twice that far, from
    ///   `offRouteCourseMinimumSpeedMetersPerSecond`), or when the matcher finds another road far likelier
    ///   (`offRouteDecisiveLogOdds`), or when it and the fix before lie far off the whole leg (`offRouteFarMeters`);
    /// - a fix still within the route's corridor whose course contradicts every direction of the route within
    ///   `onRouteCourseSpanMeters` of it (leaving at a junction, before the distance shows it): 1, or 2 when the
    ///   matcher also holds it on another road heading its way; such a fix does not reset the count — except on
    ///   the first `settlingMeters` of a leg that began at a standstill (after a waypoint the first metres decide
    ///   little: the vehicle pulls out, turns, the matcher catches up);
    /// - a fix within the corridor without a course of its own that the matcher holds on another road against the
    ///   route (`offRouteOnMatchedRoadAgainstRoute`: the other carriageway after a U-turn): 1, on the same terms;
    /// - an off-route fix from a vehicle standing on the first `settlingMeters` of the leg
    ///   (`offRouteMinimumSpeedMetersPerSecond`) counts nothing and resets nothing; nor does a fix whose own course
    ///   runs the route's way while the matcher puts it on a road across that course
    ///   (`offRouteCourseOverridesMatcher`), nor one from a vehicle standing since it stopped with nothing counted
    ///   (`standingKeepsRoute`).
    private func isOffRoute(
        _ snapped: SnappedFix, previous: SnappedFix?, beforePrevious: SnappedFix?, secondsSincePrevious: Double?,
        speed: Double?
    ) -> Bool {
        guard let p = progress else { return false }
        if leavesLegStartTheWrongWay(snapped, p) {
            offRouteEvidence = configuration.offRouteEvidenceThreshold
            return true
        }
        let jumped = isPositionJump(snapped.fix, previous: previous?.fix, seconds: secondsSincePrevious)
        // Off the route's corridor a fix without a course takes the one its positions show (the evidence of a course
        // against the route, the wrong way on the route's road); within the corridor it does not: there the progress
        // estimate of a positions-only vehicle may trail it round a turn, and the route's direction at the matched
        // position is then the one before the turn (SUMO Kouvola 1 s probe5, pulling away from a stop through a sharp
        // turn of its route: rerouted falsely when it counted).
        let ownCourse = usableCourse(snapped.fix)
        let course = ownCourse ?? derivedCourse
        let contradicts =
            course.flatMap { course in
                snapped.routeMatch.map {
                    !p.route.courseAgrees(
                        course, atDistance: $0.distanceAlongLegMeters,
                        toleranceDegrees: configuration.courseContradictionDegrees)
                }
            } ?? false
        let settling = p.startedStanding && p.along < configuration.settlingMeters
        if courseHoldsToRouteAgainstMatcher(snapped, p, course: ownCourse) { return false }
        // Stopped with nothing counted against the route, a standing vehicle is where it stopped: its fixes, off the
        // route or not, say nothing of leaving (`standingKeepsRoute`).
        if configuration.standingKeepsRoute && standingOnRoute { return false }
        let fixWeight = evidenceWeight(
            speed: snapped.fix.speedMetersPerSecond.flatMap { $0 >= 0 ? $0 : nil } ?? speed,
            seconds: max(0, secondsSincePrevious ?? 0))
        if !settling && p.along >= 1 && accumulateDivergence(snapped, p, jumped: jumped, weight: fixWeight) {
            return true
        }
        if snapped.isOnRoute {
            // Within the corridor, but leaving: the course contradicts every direction of the route within
            // `onRouteCourseSpanMeters` of the position (1), and the matcher holds the vehicle on another road
            // heading its way (2); without a course, the matcher holds it on another road against the route (1).
            var weight = 0
            if !settling, let course = ownCourse, let match = snapped.routeMatch,
                !p.route.courseAgreesAnywhere(
                    course, around: match.distanceAlongLegMeters, aroundMeters: configuration.onRouteCourseSpanMeters,
                    toleranceDegrees: configuration.courseContradictionDegrees)
            {
                weight = matcherLeaves(snapped, p, course: course) ? 2 : 1
            } else if !settling, ownCourse == nil, matcherHoldsItAgainstRoute(snapped, p) {
                weight = 1
            }
            guard weight > 0 else {
                // Plainly on the route resets the count; a fix in the corridor the matcher puts on another road
                // (log-odds at or below -`offRouteHoldLogOdds`) is not plain: leaving at a junction, the first
                // fixes past it often still lie within the corridor.
                if (snapped.routeLogOdds ?? 0) > -configuration.offRouteHoldLogOdds { offRouteEvidence = 0 }
                return false
            }
            offRouteEvidence += weight
            return offRouteEvidence >= configuration.offRouteEvidenceThreshold
        }
        // Still short of the leg's start (continuing while rolling up to a waypoint, or standing at the origin):
        // the vehicle is not yet on the leg but has not left it either.
        if p.along < 1 && (isNear(snapped.fix, p.route.leg.start.point) || isAtPreviousLegEnd(snapped.fix, p)) {
            return false
        }
        // A vehicle standing before it has really started the leg leaves nothing: its fixes scatter round a point
        // near where the leg starts (at a waypoint that is not quite the next leg's start). The evidence waits for
        // it to move. (Standing later, far off the route after turning away, does count; so does standing after
        // driving away from the leg's start, off the leg: a vehicle that left the origin the other way and stopped in
        // a queue there.)
        if let speed = snapped.fix.speedMetersPerSecond, speed >= 0 {
            if speed < configuration.offRouteMinimumSpeedMetersPerSecond {
                if p.along < configuration.settlingMeters && !p.movedOffLeg { return false }
            } else {
                progress?.movedOffLeg = true
            }
        }
        // The matcher, weighing this fix against the whole trace, still finds the leg much likelier: a noisy or
        // outlying fix it coasts through, or a progress estimate gone astray (the geometry looks for the vehicle in
        // the wrong part of the leg). Such a fix neither adds evidence nor resets it.
        if let odds = snapped.routeLogOdds, odds >= configuration.offRouteVetoLogOdds { return false }
        var weight = 1
        if let edge = snapped.edge, let course {
            let index = p.route.edgeIndex(atDistance: p.along)
            let edges = p.route.leg.edges
            let nearby = [index, index + 1].filter { $0 < edges.count }.map { edges[$0] }
            if nearby.contains(where: { graph.reverseEdge(of: $0) == edge }),
                Geodesy.bearingDifferenceDegrees(course, p.route.bearing(atDistance: p.along))
                    >= configuration.wrongWayDegrees
            {
                // Wrong way on the route's own road: decisive once confirmed by a second fix (a matcher still
                // holding the previous direction right after a turn-around leg start must not reroute alone).
                offRouteEvidence += configuration.offRouteEvidenceThreshold - 1
                return offRouteEvidence >= configuration.offRouteEvidenceThreshold
            }
        }
        // The matcher, weighing the whole trace with its bonus for the route, finds another road far likelier: as
        // strong as a course against the route (a vehicle going straight on where the route turns has no such course).
        if !jumped, let odds = snapped.routeLogOdds, odds <= -configuration.offRouteDecisiveLogOdds {
            weight = 2
        } else if !jumped, isFarOffRoute(snapped, previous: previous, beforePrevious: beforePrevious, p) {
            weight = 2
        } else if !jumped, let match = snapped.routeMatch,
            match.distanceFromRouteMeters >= configuration.strongOffRouteDistanceMeters,
            contradicts
                || ((secondsSincePrevious ?? 0) >= configuration.sparseFixSeconds
                    && match.distanceFromRouteMeters >= 2 * configuration.strongOffRouteDistanceMeters
                    && slowCourseContradicts(snapped.fix, match, p))
        {
            weight = 2
        }
        offRouteEvidence += weight
        return offRouteEvidence >= configuration.offRouteEvidenceThreshold
    }

    /// Two fixes in a row off the route, each `offRouteFarMeters` or more from any part of the leg (not only from the
    /// stretch around the progress estimate, which trails a fast vehicle between sparse fixes), the first reached
    /// without a position jump, after an off-route fix counted since the last reset, while the matcher does not
    /// prefer the route: the vehicle drove there. An outlier jumps on the way out, and so does a pair of them
    /// displaced alike. Only for a fix without a usable course of its own: with one, the course and the matcher
    /// decide as before (SUMO Baltimore 5 s probe23 with speed and course: rerouted a fix sooner by this rule, from
    /// a position at 25 m/s whose new route was left again at once: two reroutes where there had been one).
    private func isFarOffRoute(
        _ snapped: SnappedFix, previous: SnappedFix?, beforePrevious: SnappedFix?, _ p: LegProgress
    ) -> Bool {
        let far = configuration.offRouteFarMeters
        guard usableCourse(snapped.fix) == nil, offRouteEvidence > 0, (snapped.routeLogOdds ?? 0) < 0,
            (snapped.routeMatch?.distanceFromRouteMeters ?? 0) >= far, let previous, !previous.isOnRoute,
            (previous.routeMatch?.distanceFromRouteMeters ?? 0) >= far,
            !isPositionJump(
                previous.fix, previous: beforePrevious?.fix,
                seconds: beforePrevious.map { previous.timestamp.timeIntervalSince($0.timestamp) })
        else { return false }
        return [snapped.fix.coordinate, previous.fix.coordinate].allSatisfy {
            (p.route.project($0)?.distanceFromRouteMeters ?? 0) >= far
        }
    }

    /// A positions-only vehicle driving away from the leg's start the other way (the route began behind it, or it
    /// took the other direction): decided once per leg, at the first fix whose positions could show a course (see
    /// `PositionCourseConfiguration.decidesWrongWayAtLegStart`).
    private func leavesLegStartTheWrongWay(_ snapped: SnappedFix, _ p: LegProgress) -> Bool {
        guard configuration.positionCourse.decidesWrongWayAtLegStart, snapped.fix.courseDegrees == nil,
            !p.startCourseChecked, positionCourse.fixCount >= configuration.positionCourse.minimumFixes
        else { return false }
        progress?.startCourseChecked = true
        guard let course = derivedCourse, let raw = snapped.rawRouteMatch,
            raw.distanceAlongLegMeters < configuration.strongOffRouteDistanceMeters
        else { return false }
        return Geodesy.bearingDifferenceDegrees(course, p.route.bearing(atDistance: 0)) >= configuration.wrongWayDegrees
    }

    /// Drifting away from the leg while the matcher prefers another road: a one-sided CUSUM of the raw fix's distance
    /// from the leg in units of its accuracy, less `divergenceReferenceAccuracies`, each fix counting at most
    /// `divergenceMaximumStep`. A fix adds only while the matcher's log-odds for the leg are at or below
    /// `-divergenceLogOdds` and the fix did not jump; otherwise it can only lower the sum. This catches a vehicle
    /// that takes a fork at a small angle, or a parallel road, inside the corridor that decides `isOnRoute` (where the
    /// course says nothing and single fixes stay within the noise), while the matcher's own accumulated evidence
    /// keeps one noisy fix from counting. Returns true when the sum reaches `divergenceThreshold`. Without the
    /// matcher's log-odds (the nearest-road snapper) nothing accumulates. A fix adds times its `weight` as evidence
    /// (`evidenceDecorrelationMeters`): standing in a lane beside the centre line, the same offset comes back fix
    /// after fix, and the noise of a minute's standing fixes would sooner or later add up to the threshold.
    private func accumulateDivergence(_ snapped: SnappedFix, _ p: LegProgress, jumped: Bool, weight: Double) -> Bool {
        let accuracy = max(
            1, snapped.fix.horizontalAccuracyMeters ?? configuration.defaultHorizontalAccuracyMeters)
        let distance = snapped.rawRouteMatch?.distanceFromRouteMeters ?? .infinity
        var step = min(
            configuration.divergenceMaximumStep, distance / accuracy - configuration.divergenceReferenceAccuracies)
        // The course, from a moving vehicle, against every direction of the leg near the fix (a fork at a small
        // angle shows in the course long before the distance grows past the noise).
        if let course = usableCourse(snapped.fix), let match = snapped.rawRouteMatch,
            !p.route.courseAgreesAnywhere(
                course, around: match.distanceAlongLegMeters, aroundMeters: configuration.divergenceCourseSpanMeters,
                toleranceDegrees: configuration.divergenceCourseDegrees)
        {
            step = min(configuration.divergenceMaximumStep, max(step, 0) + configuration.divergenceCourseStep)
        }
        let matcherAgrees = (snapped.routeLogOdds ?? .infinity) <= -configuration.divergenceLogOdds
        if jumped || !matcherAgrees { step = min(0, step) }
        if step > 0 { step *= weight }
        divergence = max(0, divergence + step)
        return divergence >= configuration.divergenceThreshold
    }

    /// How much a fix counts as evidence of leaving, 0…1: the larger of the distance moved (speed × `seconds`) over
    /// `evidenceDecorrelationMeters` and `seconds` over `evidenceDecorrelationSeconds`, the latter no more than what
    /// the current stand has left (`standingEvidenceAllowance`).
    private func evidenceWeight(speed: Double?, seconds: Double) -> Double {
        let moved = max(0, speed ?? 0) * seconds
        return min(
            1,
            max(
                moved / configuration.evidenceDecorrelationMeters,
                min(seconds / configuration.evidenceDecorrelationSeconds, standingEvidenceAllowance)))
    }

    /// Once per fix, before the tests that weigh it: while the vehicle stands (`speed` below
    /// `offRouteMinimumSpeedMetersPerSecond`) the time share of `evidenceWeight` draws on a budget of
    /// `standingEvidenceLimit` fixes' worth for the whole stand; a moving fix renews it.
    private func updateStandingEvidence(speed: Double?, since previous: SnappedFix?, at time: Date) {
        guard let speed, speed < configuration.offRouteMinimumSpeedMetersPerSecond else {
            standingEvidenceSpent = 0
            standingEvidenceAllowance = .infinity
            return
        }
        let seconds = max(0, previous.map { time.timeIntervalSince($0.timestamp) } ?? 0)
        standingEvidenceAllowance = max(0, configuration.standingEvidenceLimit - standingEvidenceSpent)
        standingEvidenceSpent += min(seconds / configuration.evidenceDecorrelationSeconds, standingEvidenceAllowance)
    }

    private func isNear(_ fix: RawFix, _ point: Coordinate) -> Bool {
        Geodesy.distanceMeters(fix.coordinate, point) <= configuration.legStartToleranceMeters
    }

    /// The leg has not started and the vehicle is still where the previous leg ended (see `previousLegEnd`).
    private func isAtPreviousLegEnd(_ fix: RawFix, _ p: LegProgress) -> Bool {
        p.along < 1 && (p.previousLegEnd.map { isNear(fix, $0) } ?? false)
    }

    /// The raw position moved farther since the previous fix than the vehicle can have (1.5 × its speed over the
    /// interval plus `positionJumpSlackMeters`): a position outlier, or the fix that comes back from one. Its
    /// distance from the route is then weak evidence (it counts 1, never 2). The speed is the larger of the two
    /// fixes' own; when neither carries one, for a sparse interval (`sparseFixSeconds` or more) the speed derived from
    /// the positions plus `unknownSpeedAccelerationMetersPerSecondSquared` × the interval, for a dense one the
    /// progress filter's speed along the leg (0 without a route). Read as 0, the slack alone (25–40 m) took a
    /// motorway vehicle's 1 s steps (28 m, σ 11 m of noise between two σ = 8 m fixes) for jumps one time in eight to
    /// one in two: the arrival rules and the junction branch test left them out (SUMO Liechtenstein at 1 s, positions
    /// only: a waypoint driven through at 25 m/s missed, 8 false reroutes back to it). The filter's speed lags a
    /// braking vehicle (more slack for a few seconds) and one pulling away (less than it should, as 0 did).
    private func isPositionJump(_ fix: RawFix, previous: RawFix?, seconds: Double?, slackMeters: Double? = nil) -> Bool {
        guard let previous, let seconds, seconds > 0 else { return false }
        // A negative speed is no speed (-1 is "invalid" in the SDK's convention).
        let reported = max(fix.speedMetersPerSecond ?? -1, previous.speedMetersPerSecond ?? -1)
        let speed =
            reported >= 0
            ? reported
            : seconds >= configuration.sparseFixSeconds
                ? max(0, ownSpeed ?? 0) + configuration.unknownSpeedAccelerationMetersPerSecondSquared * seconds
                : max(0, progress?.velocity ?? 0)
        let plausible = 1.5 * speed * seconds + (slackMeters ?? configuration.positionJumpSlackMeters)
        return Geodesy.distanceMeters(fix.coordinate, previous.coordinate) > plausible
    }

    /// For a sparse fix already off the route by two σ or more: its course, from `offRouteCourseMinimumSpeedMetersPerSecond`
    /// (below the general minimum), contradicts the route around its position (a vehicle turning off slowly).
    private func slowCourseContradicts(_ fix: RawFix, _ match: RouteMatch, _ p: LegProgress) -> Bool {
        guard let course = fix.courseDegrees, course >= 0, let speed = fix.speedMetersPerSecond,
            speed >= configuration.offRouteCourseMinimumSpeedMetersPerSecond
        else { return false }
        return !p.route.courseAgrees(
            course, atDistance: match.distanceAlongLegMeters, toleranceDegrees: configuration.courseContradictionDegrees)
    }

    /// The fix's own course runs the route's way around the progress estimate while the matcher has put the fix on
    /// another road running across that course (see `NavigatorConfiguration.offRouteCourseOverridesMatcher`): the
    /// position is off, not the vehicle.
    private func courseHoldsToRouteAgainstMatcher(_ snapped: SnappedFix, _ p: LegProgress, course: Double?) -> Bool {
        guard configuration.offRouteCourseOverridesMatcher, let course, let edge = snapped.edge,
            let roadCourse = snapped.courseDegrees,
            Geodesy.bearingDifferenceDegrees(course, roadCourse) > configuration.courseContradictionDegrees,
            !p.route.leg.edges.contains(edge)
        else { return false }
        return p.route.courseAgreesAnywhere(
            course, around: p.along, aroundMeters: configuration.onRouteCourseSpanMeters,
            toleranceDegrees: configuration.courseContradictionDegrees)
    }

    /// A fix without a usable course: the matcher holds the moving vehicle, against its bonus for the route, on a
    /// road none of the leg's edges around the progress estimate, heading against every direction of the leg around
    /// the fix (see `NavigatorConfiguration.offRouteOnMatchedRoadAgainstRoute`).
    private func matcherHoldsItAgainstRoute(_ snapped: SnappedFix, _ p: LegProgress) -> Bool {
        guard configuration.offRouteOnMatchedRoadAgainstRoute, let edge = snapped.edge,
            let roadCourse = snapped.courseDegrees, let match = snapped.routeMatch,
            // Beside where the vehicle is on the leg: a projection onto a far part of it that comes by (a leg that
            // loops back, a vehicle not yet on the leg's start) says nothing of the road's direction here (SUMO
            // Helsinki probe18 with recorded-drive noise, positions only: 280 m along a leg not yet begun).
            abs(match.distanceAlongLegMeters - p.along) <= 2 * configuration.onRouteCourseSpanMeters,
            let odds = snapped.routeLogOdds, odds <= -configuration.offRouteHoldLogOdds,
            // Moving as fast as a fix's course needs to count: the matcher's road direction is a course, and a
            // standing vehicle's wandering positions-only fixes give the matcher speeds of 2–3 m/s (SUMO Baltimore
            // probe0, standing a minute inside a junction, put on the reverse road at log-odds −24).
            (snapped.fix.speedMetersPerSecond ?? ownSpeed ?? 0) >= configuration.minimumSpeedForCourseMetersPerSecond,
            !p.route.courseAgreesAnywhere(
                roadCourse, around: match.distanceAlongLegMeters, aroundMeters: configuration.onRouteCourseSpanMeters,
                toleranceDegrees: configuration.wrongWayDegrees)
        else { return false }
        return !isLegEdgeNearProgress(edge, p)
    }

    /// The matcher holds the vehicle on a road that is not the route's around the progress estimate, and that
    /// road's direction agrees with the vehicle's course.
    private func matcherLeaves(_ snapped: SnappedFix, _ p: LegProgress, course: Double?) -> Bool {
        guard let edge = snapped.edge, let course, let roadCourse = snapped.courseDegrees,
            Geodesy.bearingDifferenceDegrees(course, roadCourse) <= configuration.matchedRoadCourseDegrees
        else { return false }
        return !isLegEdgeNearProgress(edge, p)
    }

    /// `edge` is one of the leg's edges around the progress estimate (two before it to three after).
    private func isLegEdgeNearProgress(_ edge: EdgeID, _ p: LegProgress) -> Bool {
        let index = p.route.edgeIndex(atDistance: p.along)
        let edges = p.route.leg.edges
        return edges[max(0, index - 2)...min(edges.count - 1, index + 3)].contains(edge)
    }

    /// The fix to judge this one against for arriving: the latest fix that was no position jump, so that one outlier
    /// just before the waypoint (2 % of fixes) does not make the fix at the waypoint look like a jump. A fix that
    /// jumped from it but agrees with the fix just before (two in a row elsewhere) is believed: the vehicle is there.
    /// Returns nil for the first fix; updates `lastConsistentFix`.
    private func consistentReference(for snapped: SnappedFix, previous: SnappedFix?) -> SnappedFix? {
        guard let consistent = lastConsistentFix else {
            lastConsistentFix = snapped
            return nil
        }
        let seconds = { (f: SnappedFix) in snapped.timestamp.timeIntervalSince(f.timestamp) }
        if !isPositionJump(snapped.fix, previous: consistent.fix, seconds: seconds(consistent)) {
            lastConsistentFix = snapped
            return consistent
        }
        if let previous, previous.timestamp != consistent.timestamp,
            !isPositionJump(snapped.fix, previous: previous.fix, seconds: seconds(previous))
        {
            lastConsistentFix = snapped
            return previous
        }
        return consistent  // this fix is the jump
    }

    // MARK: Progress

    /// The filtered distance along the leg carried forward to `time`. With the new fix's own speed, the vehicle
    /// covered the interval at the mean of the filter's speed and that one (constant acceleration): a vehicle
    /// pulling away from a light between 5 s fixes is otherwise predicted where it stood, its first moving fix
    /// lands outside the gate, and the estimate trails it by tens of metres past the waypoint.
    private func predictedAlong(_ p: LegProgress, at time: Date, fixSpeed: Double? = nil) -> Double {
        let dt = max(0, time.timeIntervalSince(p.updatedAt))
        return min(p.route.lengthMeters, p.along + intervalSpeed(p, fixSpeed: fixSpeed) * dt)
    }

    /// The speed along the leg over the interval since the filter's last update, m/s (see `predictedAlong`).
    private func intervalSpeed(_ p: LegProgress, fixSpeed: Double?) -> Double {
        guard let fixSpeed, fixSpeed >= 0 else { return p.velocity }
        return (p.velocity + min(fixSpeed, configuration.maximumSpeedMetersPerSecond)) / 2
    }

    /// The fix's own speed; on sparse fixes (this one and the previous one each `sparseFixSeconds` or more after the
    /// one before) without one, the speed derived from the positions (`derived`) in its place. With the β gain alone
    /// a positions-only vehicle pulling away at 5 s fixes was predicted 40-50 m short fix after fix, its fixes
    /// rejected by the gate, and the estimate stood still for 15 s at a time, or ran on while the vehicle stood
    /// (nothing told the β gain it had stopped). At 1 s fixes, and after a gap in them, the β gain (updated every
    /// second) follows the vehicle better than the derived speed (20 s of positions), which lags a braking vehicle
    /// by 10-15 m/s: there the fix keeps no speed.
    private func fixOrDerivedSpeed(_ fix: RawFix, _ derived: Double?) -> Double? {
        if let own = fix.speedMetersPerSecond { return own >= 0 ? own : nil }
        let sparse = configuration.sparseFixSeconds
        let seconds = fixBeforeLast.map { fix.timestamp.timeIntervalSince($0.timestamp) } ?? 0  // the previous fix
        return seconds >= sparse && (previousIntervalSeconds ?? sparse) >= sparse ? derived : nil
    }

    /// α-β filter on the distance along the leg, with an outlier gate. `speed`: the vehicle's speed (the fix's, or
    /// derived from the positions), standing in for a sparse fix's missing one (see `fixOrDerivedSpeed`); the gate
    /// then also allows for acceleration.
    private func track(_ p: inout LegProgress, measurement: Double, snapped: SnappedFix, speed: Double?) {
        let time = snapped.timestamp
        let dt = max(0, time.timeIntervalSince(p.updatedAt))
        let fixSpeed = fixOrDerivedSpeed(snapped.fix, speed)
        let predicted = predictedAlong(p, at: time, fixSpeed: fixSpeed)
        let residual = measurement - predicted
        let accuracy = snapped.fix.horizontalAccuracyMeters ?? configuration.defaultHorizontalAccuracyMeters
        // A fix without its own speed may also find the vehicle pulling away faster than the derived speed (20 s of
        // positions, see `vehicleSpeed`) knows: the gate widens by what
        // `unknownSpeedAccelerationMetersPerSecondSquared` adds over the interval.
        let unknownSpeedSlack =
            snapped.fix.speedMetersPerSecond == nil && fixSpeed != nil
            ? 0.5 * configuration.unknownSpeedAccelerationMetersPerSecondSquared * dt * dt : 0
        let gate = 3 * accuracy + 0.5 * intervalSpeed(p, fixSpeed: fixSpeed) * dt + 10 + unknownSpeedSlack
        // Three outliers in a row are believed (the vehicle really is there) — unless the fix's own speed says
        // it cannot have got there (standing at a waypoint while the leg passes nearby again further on); ten are
        // believed regardless.
        let supported = snapped.fix.speedMetersPerSecond.map { $0 * dt + gate >= abs(residual) } ?? true
        // … or when the vehicle drives on along the leg from the rejected measurement at its own speed: it joined the
        // leg further on (`progressFollowsDrivingOnAhead`). A function: worked out only for an unsupported jump.
        func drivesOnFromRejected() -> Bool {
            guard configuration.progressFollowsDrivingOnAhead, let last = p.lastRejected, p.rejected >= 2,
                let own = snapped.fix.speedMetersPerSecond,
                own >= configuration.minimumSpeedForCourseMetersPerSecond
            else { return false }
            let seconds = time.timeIntervalSince(last.time)
            guard seconds > 0 else { return false }
            let driven = measurement - last.along
            return driven > 0 && abs(driven - 0.5 * (own + last.speed) * seconds) <= 3 * accuracy + 0.25 * driven
        }
        if abs(residual) > gate && (p.rejected < 2 || (!supported && !drivesOnFromRejected() && p.rejected < 10)) {
            p.rejected += 1
            p.lastRejected = (measurement, time, snapped.fix.speedMetersPerSecond ?? 0)
            return
        }
        p.lastRejected = nil
        if abs(residual) > gate {
            p.along = measurement  // three in a row: believe them
        } else {
            p.along = predicted + configuration.progressGain * residual
        }
        p.rejected = 0
        p.velocityReported = (snapped.fix.speedMetersPerSecond ?? -1) >= 0
        if let fixSpeed, fixSpeed >= 0 {
            p.velocity = fixSpeed
        } else if dt > 0 {
            p.velocity += configuration.progressVelocityGain * residual / dt
        }
        p.velocity = min(configuration.maximumSpeedMetersPerSecond, max(0, p.velocity))
        p.along = min(p.route.lengthMeters, max(0, p.along))
        p.updatedAt = time
        p.lastMeasurement = measurement
    }

    /// `previousFix`: the latest consistent fix (see `consistentReference`); `interval`: seconds since the previous
    /// fix, whatever it was (the fix rate).
    private func checkArrival(_ snapped: SnappedFix, previousFix: RawFix?, interval: Double?, at time: Date)
        -> NavigationEvent?
    {
        guard var p = progress, !p.arrived, let destination = destinations.first else { return nil }
        let length = p.route.lengthMeters
        let estimateClose = length - p.along <= configuration.arrivalRadiusMeters
        // This fix must agree: its matched position and the raw fix itself, both projected onto the leg (a matched
        // position may run ahead of the fix, one outlier may drag the estimate forward).
        let measurementLimit =
            snapped.fix.speedMetersPerSecond == nil && (interval ?? .infinity) < configuration.sparseFixSeconds
            ? configuration.arrivalRadiusMeters + configuration.arrivalMeasurementSlackWithoutSpeedMeters
            : configuration.arrivalMeasurementLimitMeters
        let accuracy = snapped.fix.horizontalAccuracyMeters ?? configuration.defaultHorizontalAccuracyMeters
        // How far from the leg (or the matched position) a raw fix may lie and still count as measuring it.
        let rawCorridor = max(configuration.arrivalRawCorridorMeters, 2 * accuracy)
        let measurementClose =
            snapped.routeMatch.map { length - $0.distanceAlongLegMeters <= measurementLimit } ?? false
            && snapped.rawRouteMatch.map {
                length - $0.distanceAlongLegMeters <= measurementLimit
                    && $0.distanceFromRouteMeters <= rawCorridor
            } ?? true
        // Standing at the destination counts even when the leg's plan approaches it from elsewhere (the other
        // carriageway, after a reroute): slow fixes near the leg's end or the waypoint, twice in a row.
        let slow =
            (snapped.fix.speedMetersPerSecond ?? ownSpeed ?? .infinity)
            <= configuration.arrivalStandingSpeedMetersPerSecond
        let position = snapped.edge == nil ? snapped.fix.coordinate : snapped.coordinate
        // Where the vehicle stands is the mean of the run of standing fixes (one σ = 8 m fix says little: a stop
        // 32 m short of the end would otherwise come within 25 m by noise), leaving out outliers.
        if !slow {
            standing = nil
        } else if let s = standing {
            let mean = Coordinate(latitude: s.latitude, longitude: s.longitude)
            if Geodesy.distanceMeters(mean, position) <= configuration.standingOutlierMeters {
                let n = Double(s.count + 1)
                standing = (
                    s.latitude + (position.latitude - s.latitude) / n,
                    s.longitude + (position.longitude - s.longitude) / n, s.count + 1
                )
            }
        } else {
            standing = (position.latitude, position.longitude, 1)
        }
        let nearEnd =
            standing.map { s in
                let mean = Coordinate(latitude: s.latitude, longitude: s.longitude)
                return s.count >= configuration.arrivalStandingFixes
                    && min(
                        Geodesy.distanceMeters(mean, p.route.leg.end.point),
                        Geodesy.distanceMeters(mean, destination.coordinate))
                        <= configuration.arrivalStandingRadiusMeters - accuracy / Double(s.count).squareRoot()
            } ?? false
        // … unless the vehicle is on the leg well before its end (passing the destination on the way round).
        let measuredAlong = snapped.routeMatch?.distanceAlongLegMeters ?? p.along
        // … or the progress estimate, which has followed the vehicle along this leg (`arrivalStandingProgressMeters` or more
        // of it), has it standing where the leg is well before its end (a light on a leg that loops round the block
        // past its waypoint: the matched position may project onto the leg's last metres, which pass close by). A
        // vehicle that has not driven along the leg (standing at its start, arriving from elsewhere after a reroute)
        // is not held back by this.
        let standingOnLegBeforeEnd =
            configuration.arrivalStandingProgressMeters > 0
            && p.along >= configuration.arrivalStandingProgressMeters
            && length - p.along > 2 * configuration.arrivalStandingRadiusMeters
            && (standing.map { s in
                Geodesy.distanceMeters(
                    Coordinate(latitude: s.latitude, longitude: s.longitude), p.route.point(atDistance: p.along))
                    <= configuration.arrivalStandingRadiusMeters
            } ?? false)
        let explainedByLeg =
            (snapped.isOnRoute && length - measuredAlong > 2 * configuration.arrivalStandingRadiusMeters)
            || standingOnLegBeforeEnd
        // Driving through without stopping: the estimate trails a moving vehicle, so the matched position and the
        // raw fix, in a straight line, must say it is there.
        let legEnd = p.route.leg.end.point
        func straightLine(_ c: Coordinate) -> Double {
            min(Geodesy.distanceMeters(c, legEnd), Geodesy.distanceMeters(c, destination.coordinate))
        }
        // … and the fix is no jump: the progress filter took it (`rejected` is 0) and it lies within a plausible
        // drive of the previous fix (an outlier landing on the waypoint would otherwise announce it early).
        let sincePrevious = previousFix.map { time.timeIntervalSince($0.timestamp) }
        let plausible = p.rejected == 0
            && !isPositionJump(snapped.fix, previous: previousFix, seconds: sincePrevious, slackMeters: 2.5 * accuracy)
        // The estimate trails by more when the fixes are sparse: half the distance driven since the previous fix,
        // between `arrivalPassingEstimateMeters` and 1.5 times it.
        let step = (snapped.fix.speedMetersPerSecond ?? ownSpeed ?? 0)
            * (sincePrevious ?? 0)
        let stepLimit = min(
            1.5 * configuration.arrivalPassingEstimateMeters, max(configuration.arrivalPassingEstimateMeters, step / 2))
        // At sparse fixes, or without the fix's own speed, a moving vehicle's fix that itself is at the waypoint
        // (matched and raw, along the leg and in a straight line) may have the estimate trail by more (see
        // `arrivalAgreeingEstimateMeters`). A standing one has the standing rule, which averages its fixes.
        let fixAtWaypoint =
            ((interval ?? 0) >= configuration.sparseFixSeconds
                || (configuration.arrivalAgreeingEstimateWithoutSpeed && snapped.fix.speedMetersPerSecond == nil))
            && !slow
            && snapped.routeMatch.map { length - $0.distanceAlongLegMeters <= configuration.arrivalRadiusMeters }
                ?? false
            && snapped.rawRouteMatch.map {
                length - $0.distanceAlongLegMeters <= configuration.arrivalAgreeingFixRadiusMeters
                    && $0.distanceFromRouteMeters <= configuration.arrivalAgreeingFixRadiusMeters
            } ?? false
            && straightLine(snapped.fix.coordinate) <= configuration.arrivalAgreeingFixRadiusMeters
        let estimateLimit = fixAtWaypoint ? max(stepLimit, configuration.arrivalAgreeingEstimateMeters) : stepLimit
        let passingClose = plausible
            && length
                - max(
                    p.along,
                    predictedAlong(p, at: time, fixSpeed: fixOrDerivedSpeed(snapped.fix, ownSpeed)))
                <= estimateLimit
            && snapped.edge != nil && straightLine(snapped.coordinate) <= configuration.arrivalRadiusMeters
            && straightLine(snapped.fix.coordinate) <= rawCorridor
        // Sparse fixes at speed: this fix is the nearest to the waypoint there will be (the next one, a fix interval
        // on at this speed, lands more than `arrivalNearestFixMeters` past it), and both the matched position and
        // the raw fix put it within that radius, along the leg and in a straight line.
        let nearestFix: Bool = {
            guard configuration.arrivalNearestFixMeters > 0, plausible, snapped.isOnRoute, snapped.edge != nil,
                let match = snapped.routeMatch, let raw = snapped.rawRouteMatch, let interval, interval > 0
            else { return false }
            let toGo = max(0, length - match.distanceAlongLegMeters, length - raw.distanceAlongLegMeters)
            let radius = configuration.arrivalNearestFixMeters
            let speed = snapped.fix.speedMetersPerSecond ?? ownSpeed ?? 0
            return toGo <= radius && speed * interval - toGo > radius
                && straightLine(snapped.coordinate) <= radius && straightLine(snapped.fix.coordinate) <= radius
                && raw.distanceFromRouteMeters <= rawCorridor
        }()
        // Dense fixes, and this one's position is an outlier (a jump, or far off the leg) at the waypoint: where the
        // last accepted position and the speed since put the vehicle. The fix's own speed says it still moves (the
        // slower of it and the filter's carries the estimate on, so braking is not overtaken), and the matcher, coasting
        // through the outlier, must have it at the waypoint too. Without this a drive ending at the destination with
        // an outlier as its last fix (2 % of fixes) is never announced.
        let coastedThroughOutlier: Bool = {
            let rawOffLeg =
                snapped.rawRouteMatch.map {
                    $0.distanceFromRouteMeters > rawCorridor
                } ?? true
            // … or far from the matcher's position, which coasted through it, and behind the fix before: an outlier
            // displaced back along the road stays inside the leg's corridor and within a plausible drive at 5 s fixes
            // (SUMO Baltimore, actuated signals, probe5 at 5 s: the last fix 86 m back along the leg, 62 m behind the
            // fix before, the match 7 m from the waypoint). Behind, because a match that runs ahead of fixes that
            // move on is no outlier (`GuidanceAccuracyTests.arrivalWaitsForTheRawFixWhenTheMatchRunsAhead`).
            // A function, so that it is worked out only when the cheaper tests have not decided.
            func rawBehindAndFarFromMatch() -> Bool {
                guard let previous = previousFix,
                    Geodesy.distanceMeters(snapped.fix.coordinate, snapped.coordinate) > rawCorridor,
                    Geodesy.distanceMeters(previous.coordinate, snapped.fix.coordinate) > 2 * accuracy
                else { return false }
                let back = Geodesy.initialBearingDegrees(from: previous.coordinate, to: snapped.fix.coordinate)
                return !p.route.courseAgrees(back, atDistance: p.along, toleranceDegrees: 90)
            }
            let unseen = time.timeIntervalSince(p.updatedAt)
            guard configuration.arrivalCoastingMaximumSeconds > 0, snapped.edge != nil,
                !plausible || rawOffLeg || rawBehindAndFarFromMatch()
            else { return false }
            guard let fixSpeed = snapped.fix.speedMetersPerSecond else {
                // Positions only: the estimate and the matcher follow the vehicle with the β gain's lagging speed (a
                // vehicle pulling away into its destination is 10-15 m ahead of both, and the filter may even take
                // the matcher's coasting position for this fix). The line through the last good raw fixes' straight-
                // line distances to the leg's end (no projection onto the leg: a leg that comes by the same place twice
                // makes that ambiguous, SUMO Kouvola probe9), carried on to this fix's time, stands in for the
                // reckoning; the matcher's position, trailing, must still be within `arrivalStandingRadiusMeters`.
                guard let line = rawTrackLine(p, at: time, residualMeters: 2 * accuracy),
                    -line.speed >= configuration.minimumSpeedForCourseMetersPerSecond,
                    time.timeIntervalSince(line.lastTime) <= configuration.arrivalCoastingMaximumSeconds
                else { return false }
                return line.along <= configuration.arrivalRadiusMeters
                    && straightLine(snapped.coordinate) <= configuration.arrivalStandingRadiusMeters
            }
            // unseen 0: the progress filter took this fix's matched position (the matcher's coasting), not the outlier.
            // Longer (sparse fixes, a few outliers in a row) only when the last accepted fix reported a speed at which
            // the vehicle moved as well: moving at both ends of the interval.
            let movedAtBothEnds = p.velocityReported && p.velocity >= configuration.minimumSpeedForCourseMetersPerSecond
            guard unseen >= 0,
                unseen <= configuration.arrivalCoastingMaximumSeconds
                    || (movedAtBothEnds && unseen <= configuration.arrivalCoastingMovingMaximumSeconds),
                fixSpeed >= configuration.minimumSpeedForCourseMetersPerSecond
            else { return false }
            // Over a sparse interval a vehicle that sped up is reckoned at the mean of the two speeds (the slower end's
            // is then far short: `arrivalCoastingMovingMaximumSeconds`).
            let speed = unseen > configuration.arrivalCoastingMaximumSeconds
                ? min(fixSpeed, 0.5 * (fixSpeed + p.velocity)) : min(fixSpeed, p.velocity)
            let reckoned = p.along + speed * unseen
            return length - reckoned <= configuration.arrivalRadiusMeters
                && straightLine(snapped.coordinate) <= configuration.arrivalRadiusMeters
        }()
        // Record this fix on the positions-only track when it is no jump and lies within the leg's raw corridor.
        if snapped.fix.speedMetersPerSecond == nil, configuration.arrivalCoastingTrackSeconds > 0,
            !isPositionJump(snapped.fix, previous: previousFix, seconds: sincePrevious, slackMeters: 2.5 * accuracy),
            let raw = snapped.rawRouteMatch,
            raw.distanceFromRouteMeters <= rawCorridor
        {
            let window = configuration.arrivalCoastingTrackSeconds
            progress?.rawTrack.removeAll { time.timeIntervalSince($0.time) >= window || $0.time >= time }
            progress?.rawTrack.append((time, Geodesy.distanceMeters(snapped.fix.coordinate, legEnd)))
        }
        // A moving fix whose own course runs across the leg's last metres says the vehicle drives elsewhere (a fork
        // just before the destination), whatever the matcher, still holding it on the route, says; only the
        // standing rule, which averages positions, may then announce.
        let moving = (estimateClose && measurementClose && snapped.isOnRoute) || passingClose || nearestFix
            || coastedThroughOutlier
        guard (moving && !drivesAcrossLegEnd(snapped.fix, previous: previousFix, p.route)) || (nearEnd && !explainedByLeg)
        else {
            return nil
        }
        return announceArrival(&p, at: time, vehicle: snapped.coordinate)
    }

    /// Whether the vehicle drives across the leg's end rather than along it to it (`arrivalCourseAcrossLegDegrees`):
    /// the fix's own course runs across the leg's last `arrivalCourseSpanMeters`, and either the fix lies more than
    /// `arrivalRadiusMeters` from the leg's end and the waypoint or the fix before it ran across too, on about the
    /// same course (a branch is driven along; a vehicle turning round in the junction at its destination runs across
    /// the leg on two fixes at 5 s, but not on one course). A single fix at the destination turning off into the next
    /// street (SUMO's vehicles end their drive in the junction) is there, whatever its course.
    private func drivesAcrossLegEnd(_ fix: RawFix, previous: RawFix?, _ route: ActiveLeg) -> Bool {
        guard courseRunsAcrossLegEnd(fix, route), let course = fix.courseDegrees else { return false }
        let atEnd = min(
            Geodesy.distanceMeters(fix.coordinate, route.leg.end.point),
            destinations.first.map { Geodesy.distanceMeters(fix.coordinate, $0.coordinate) } ?? .infinity)
            <= configuration.arrivalRadiusMeters
        guard atEnd else { return true }
        guard let previous, let previousCourse = previous.courseDegrees,
            Geodesy.bearingDifferenceDegrees(previousCourse, course) <= configuration.arrivalCourseAcrossLegDegrees
        else { return false }
        return courseRunsAcrossLegEnd(previous, route)
    }

    /// A moving fix's own course (at `minimumSpeedForCourseMetersPerSecond` or more) differs by more than
    /// `arrivalCourseAcrossLegDegrees` from every direction of the leg's last `arrivalCourseSpanMeters`. False for a
    /// fix without speed or course, or too slow for one.
    private func courseRunsAcrossLegEnd(_ fix: RawFix, _ route: ActiveLeg) -> Bool {
        guard configuration.arrivalCourseAcrossLegDegrees > 0, let course = fix.courseDegrees,
            let speed = fix.speedMetersPerSecond, speed >= configuration.minimumSpeedForCourseMetersPerSecond
        else { return false }
        return !route.courseAgreesAnywhere(
            course, around: route.lengthMeters, aroundMeters: configuration.arrivalCourseSpanMeters,
            toleranceDegrees: configuration.arrivalCourseAcrossLegDegrees)
    }

    /// The least-squares line through the positions-only track (`LegProgress.rawTrack`: at least three fixes spanning
    /// at least 2 s, each within `residualMeters` of it), evaluated at `time`: distance to the leg's end, metres; its
    /// slope, m/s (negative when approaching); the last fix's time.
    private func rawTrackLine(_ p: LegProgress, at time: Date, residualMeters: Double)
        -> (along: Double, speed: Double, lastTime: Date)?
    {
        let track = p.rawTrack
        guard track.count >= 3, let first = track.first, let last = track.last,
            last.time.timeIntervalSince(first.time) >= 2
        else { return nil }
        // The course estimator's fit, in one dimension (the distance to the leg's end as x).
        let points = track.map { (t: $0.time.timeIntervalSince(last.time), x: $0.along, y: 0.0) }
        guard let fit = PositionCourseEstimator.fit(points) else { return nil }
        // A track that is no steady approach (a turn past the end, a stop and go) says nothing: every fix within
        // `residualMeters` of the line, and no faster than a vehicle drives.
        guard abs(fit.vx) <= configuration.maximumSpeedMetersPerSecond,
            points.allSatisfy({ abs($0.x - (fit.xm + fit.vx * ($0.t - fit.tm))) <= residualMeters })
        else { return nil }
        return (fit.xm + fit.vx * (time.timeIntervalSince(last.time) - fit.tm), fit.vx, last.time)
    }

    /// The vehicle's matched positions at the previous fix and this one lie on either side of the leg's end, the
    /// line between them passes within `arrivalRadiusMeters` of it, and the estimate before this fix could have
    /// reached the end: it drove through between two sparse fixes (see `arrivalByPassingThrough`).
    private func checkPassedThrough(_ snapped: SnappedFix, previous: SnappedFix, at time: Date) -> NavigationEvent? {
        let seconds = time.timeIntervalSince(previous.timestamp)
        guard configuration.arrivalByPassingThrough, var p = progress, !p.arrived,
            seconds > 0, previous.edge != nil, previous.isOnRoute, snapped.edge != nil,
            !isPositionJump(snapped.fix, previous: previous.fix, seconds: seconds)
        else { return nil }
        // A matched position far from its own fix while that fix lies on the leg short of its end by more than a
        // measurement that agrees with an arrival may be (`arrivalMeasurementLimitMeters`): the matcher dead-reckoned
        // past fixes it took for outliers, and the fix says the vehicle has not come that far. (A fix off the leg, an
        // outlier the matcher rightly coasted through, says nothing against the matched position.)
        let fixLimit = configuration.arrivalPassingThroughFixMeters
        if fixLimit > 0, fixLimit.isFinite,
            Geodesy.distanceMeters(snapped.coordinate, snapped.fix.coordinate) > fixLimit,
            let onLeg = PolylineGeometry.project(snapped.fix.coordinate, ontoPolyline: p.route.leg.geometry)
        {
            let accuracy = snapped.fix.horizontalAccuracyMeters ?? configuration.defaultHorizontalAccuracyMeters
            if onLeg.distanceMeters <= max(configuration.arrivalRawCorridorMeters, 2 * accuracy)
                && p.route.lengthMeters - onLeg.offsetMeters > configuration.arrivalMeasurementLimitMeters
            {
                return nil
            }
        }
        let end = p.route.leg.end.point
        let step = Geodesy.distanceMeters(previous.coordinate, snapped.coordinate)
        let crossing = PolylineGeometry.project(end, ontoSegment: previous.coordinate, snapped.coordinate)
        guard crossing.fraction > 0, crossing.fraction < 1,
            crossing.distanceMeters <= configuration.arrivalRadiusMeters,
            p.route.lengthMeters - p.along <= step + configuration.arrivalRadiusMeters
        else { return nil }
        // … moving the way the leg arrives (a vehicle crossing the waypoint's street on another road is not
        // passing through it).
        let geometry = p.route.leg.geometry
        guard let last = geometry.last,
            let before = geometry.dropLast().last(where: { Geodesy.distanceMeters($0, last) >= 1 })
        else { return nil }
        let arrivingBearing = Geodesy.initialBearingDegrees(from: before, to: last)
        let movingBearing = Geodesy.initialBearingDegrees(from: previous.coordinate, to: snapped.coordinate)
        guard Geodesy.bearingDifferenceDegrees(arrivingBearing, movingBearing)
            <= configuration.arrivalPassingThroughCourseDegrees,
            !drivesAcrossLegEnd(snapped.fix, previous: previous.fix, p.route)
        else { return nil }
        return announceArrival(&p, at: time, vehicle: snapped.coordinate)
    }

    /// A GPS gap (`arrivalAfterGapMinimumSeconds` or more between two fixes; at sparse fixes, any interval of
    /// `sparseFixSeconds` or more, see `arrivalAfterSparseInterval`) began while the vehicle was on the leg
    /// and hid its end: the vehicle now reappears off the leg but on the next one, its matched position and raw fix
    /// both near it, moving its way, and no farther along it than a drive through the waypoint could have come
    /// (unseen at up to 1.5 times its speed plus 5 m/s, then at its own speed), within
    /// `arrivalAfterGapMinimumSeconds` of the gap's end. One that drove on and came back would be going the other way.
    /// Past the final destination there is no next leg: the road on past it stands in for one (the rest of the leg's
    /// last edge and its straightest continuation, `RoadGraph.straightestPath`), as the SDK's navigator, which
    /// follows the vehicle along the road, would see it drive through; a vehicle that turned off before the
    /// destination in the gap is on another road and still rerouted back to it.
    private enum GapArrival {
        case announced(NavigationEvent)
        case awaitingConfirmation
    }

    private func checkPassedDuringGap(_ snapped: SnappedFix, previous: SnappedFix?, at time: Date) -> GapArrival? {
        // Awaiting confirmation holds for one fix only: this one confirms it (still off the leg: on the next one, or
        // anywhere but back on this leg) or, matched back on this leg, ends it (the fix before was an outlier).
        let awaiting = gapArrivalAwaitingConfirmation
        gapArrivalAwaitingConfirmation = nil
        if awaiting != nil, awaiting == previous?.timestamp, var p = progress, !p.arrived, !snapped.isOnRoute {
            lastFixGap = nil
            return announceArrival(&p, at: time, vehicle: snapped.coordinate).map { .announced($0) }
        }
        guard configuration.arrivalAfterGapMinimumSeconds > 0, var p = progress, !p.arrived, let gap = lastFixGap,
            !snapped.isOnRoute, snapped.edge != nil,
            gap.start.timeIntervalSince(p.updatedAt) <= configuration.arrivalAfterGapMinimumSeconds,
            gap.end > p.updatedAt,
            time.timeIntervalSince(gap.end) <= configuration.arrivalAfterGapMinimumSeconds,
            // A sparse interval, no real gap: the fix before it (or, that one off, the one before; see where
            // `lastFixGap` is set) must have been on the leg (a trip that starts on
            // the far side of a two-way road from its waypoint passes by it the other way: SUMO Liechtenstein seed 2
            // probe2 at 5 s was announced 63 m past it, with 2 km of its drive to go).
            gap.end.timeIntervalSince(gap.start) >= configuration.arrivalAfterGapMinimumSeconds || gap.startOnRoute
        else { return nil }
        // Unseen, the vehicle may have sped up; since the gap ended its own fixes say how fast it goes.
        let speed = max(p.velocity, snapped.fix.speedMetersPerSecond ?? 0, ownSpeed ?? 0)
        let reachMeters =
            min(configuration.maximumSpeedMetersPerSecond, 1.5 * speed + 5) * gap.end.timeIntervalSince(p.updatedAt)
            + (1.2 * speed + 2) * time.timeIntervalSince(gap.end)
        let toEndMeters = max(0, p.route.lengthMeters - p.along)
        guard toEndMeters < reachMeters else { return nil }
        // Only the part of the next leg a drive could have reached (its geometry may run for kilometres).
        let next = legs.count > 1 ? legs[1].geometry : roadBeyond(legs[0], lengthMeters: reachMeters - toEndMeters + 1)
        var prefix: [Coordinate] = []
        var length = 0.0
        for point in next {
            if let last = prefix.last {
                length += Geodesy.distanceMeters(last, point)
                if length > reachMeters - toEndMeters + 1 { prefix.append(point); break }
            }
            prefix.append(point)
        }
        let accuracy = snapped.fix.horizontalAccuracyMeters ?? configuration.defaultHorizontalAccuracyMeters
        guard prefix.count > 1,
            let onNext = PolylineGeometry.project(snapped.coordinate, ontoPolyline: prefix),
            onNext.distanceMeters <= configuration.arrivalRadiusMeters,
            toEndMeters + onNext.offsetMeters <= reachMeters,
            let rawOnNext = PolylineGeometry.project(snapped.fix.coordinate, ontoPolyline: prefix),
            rawOnNext.distanceMeters <= max(configuration.arrivalRawCorridorMeters, 2 * accuracy)
        else { return nil }
        // Going the next leg's way: the fix's course when it moves, else the step from the previous matched position.
        let legBearing = Geodesy.initialBearingDegrees(
            from: prefix[onNext.segmentIndex], to: prefix[onNext.segmentIndex + 1])
        var moving: Double?
        var roadChord: Double?
        if let course = snapped.fix.courseDegrees, (snapped.fix.speedMetersPerSecond ?? speed)
            >= configuration.minimumSpeedForCourseMetersPerSecond
        {
            moving = course
        } else if let previous, Geodesy.distanceMeters(previous.coordinate, snapped.coordinate) >= 2 * accuracy {
            moving = Geodesy.initialBearingDegrees(from: previous.coordinate, to: snapped.coordinate)
            // The step is a chord: on a bend it runs wide of the road's direction here by half the bend, so it may
            // go the way of the road's own chord from the waypoint to here instead (`arrivalAfterGapStepAlongRoadChord`).
            if configuration.arrivalAfterGapStepAlongRoadChord, onNext.offsetMeters >= 2 * accuracy {
                roadChord = Geodesy.initialBearingDegrees(from: prefix[0], to: snapped.coordinate)
            }
        }
        let limit = configuration.arrivalPassingThroughCourseDegrees
        guard let moving, Geodesy.bearingDifferenceDegrees(moving, legBearing) <= limit
            || roadChord.map({ Geodesy.bearingDifferenceDegrees(moving, $0) <= limit }) == true
        else { return nil }
        if configuration.arrivalAfterGapConfirmed && awaiting == nil
            && gap.end.timeIntervalSince(gap.start) >= configuration.arrivalAfterGapMinimumSeconds
        {
            gapArrivalAwaitingConfirmation = gap.end
            return .awaitingConfirmation
        }
        lastFixGap = nil
        return announceArrival(&p, at: time, vehicle: snapped.coordinate).map { .announced($0) }
    }

    /// The road on past `leg`'s end: the rest of its last edge and the straightest continuation after it, about
    /// `lengthMeters` long.
    private func roadBeyond(_ leg: RouteLeg, lengthMeters: Double) -> [Coordinate] {
        let shape = graph.geometry(of: leg.end.edge)
        var rest = [leg.end.point]
        var along = 0.0
        for (a, b) in zip(shape, shape.dropFirst()) {
            along += Geodesy.distanceMeters(a, b)
            if along > leg.end.offsetMeters { rest.append(b) }
        }
        return graph.straightestPath(
            after: leg.end.edge, startingWith: rest, lengthMeters: lengthMeters, mode: travelMode, avoiding: [])
    }

    private func announceArrival(_ p: inout LegProgress, at time: Date, vehicle: Coordinate) -> NavigationEvent? {
        guard let destination = destinations.first else { return nil }
        p.arrived = true
        progress = p
        if stopGuidanceAtArrival { isGuidanceActive = false }
        return .arrival(
            ArrivalEvent(
                timestamp: time, waypoint: destination, remainingWaypoints: destinations.count - 1,
                vehicleCoordinate: vehicle))
    }

    /// Remaining time and distance. The time is the leg's model (own speed blended on the current edge) scaled
    /// by the trip's pace: (elapsed ÷ model time of the progress so far), trusted in proportion to how much of the
    /// trip it rests on (weight m ÷ (m + `paceHalfWeightSeconds`) for m model seconds driven) and clamped to
    /// `paceRatioRange`. A city whose junctions cost more (or less) than the model says shows it early in the trip.
    private func remaining(_ p: LegProgress) -> (seconds: Double, meters: Double) {
        // Standing, from where the vehicle stopped (`standingEtaProgressMeters`).
        var along = p.along
        if let stopped = standingEtaAlong, abs(stopped - along) < configuration.standingEtaProgressMeters {
            along = stopped
        }
        let meters = max(0, p.route.lengthMeters - along)
        let moving = ownSpeed.flatMap { $0 >= configuration.ownSpeedMinimumMetersPerSecond ? $0 : nil }
        let seconds = p.time.remainingSeconds(
            atDistance: along, ownSpeedMetersPerSecond: moving,
            ownSpeedWeight: configuration.ownSpeedWeight,
            ownSpeedFloor: configuration.ownSpeedFloorFraction)
        guard configuration.paceSplitsStops else { return (seconds * paceFactor, meters) }
        guard configuration.paceUnsplitUnderFeed else {
            let junction = min(seconds, p.time.remainingDelaySeconds(atDistance: along))
            return ((seconds - junction) * roadPaceFactor + junction * stopPaceFactor, meters)
        }
        let parts = p.time.remainingFeedAndJunctionSeconds(atDistance: along)
        let feed = min(seconds, parts.feed)
        let junction = min(seconds - feed, parts.junction)
        let road = seconds - feed - junction
        let feedPace = shrunkRatio(
            pace.elapsedSeconds, pace.modelSeconds, halfWeight: configuration.feedPaceHalfWeightSeconds)
        return (feed * feedPace + road * roadPaceFactor + junction * stopPaceFactor, meters)
    }

    /// Moving time ÷ the model's road time for the progress made (the driver's and the traffic's speed), weighted as
    /// `paceFactor`.
    private var roadPaceFactor: Double {
        shrunkRatio(pace.movingSeconds, pace.roadModelSeconds, halfWeight: configuration.paceHalfWeightSeconds)
    }

    /// Time not moving ÷ the model's junction delays for the progress made (the city's and the trip's stops), with
    /// weight j ÷ (j + `paceStopHalfWeightSeconds`) for j junction seconds passed: most of a trip's stops are the
    /// lottery of the signals met, which says little about those ahead.
    private var stopPaceFactor: Double {
        shrunkRatio(
            pace.elapsedSeconds - pace.movingSeconds, pace.modelSeconds - pace.roadModelSeconds,
            halfWeight: configuration.paceStopHalfWeightSeconds)
    }

    /// observed ÷ model clamped to `paceRatioRange`, trusted with weight model ÷ (model + `halfWeight`).
    private func shrunkRatio(_ observed: Double, _ model: Double, halfWeight: Double) -> Double {
        guard model > 0 else { return 1 }
        let range = configuration.paceRatioRange
        let ratio = min(range.upperBound, max(range.lowerBound, observed / model))
        return 1 + model / (model + halfWeight) * (ratio - 1)
    }

    private var paceFactor: Double {
        shrunkRatio(pace.elapsedSeconds, pace.modelSeconds, halfWeight: configuration.paceHalfWeightSeconds)
    }

    /// The model's remaining seconds of the leg, without the vehicle's own speed.
    private func modelRemainingSeconds(_ p: LegProgress) -> Double {
        p.time.remainingSeconds(atDistance: p.along, ownSpeedMetersPerSecond: nil, ownSpeedWeight: 0, ownSpeedFloor: 0)
    }

    /// Remaining time and distance events, each when its change reaches its threshold, while guidance is active.
    private func progressEvents(at time: Date) -> [NavigationEvent] {
        guard isGuidanceActive, let p = progress, let destination = destinations.first else { return [] }
        let (seconds, meters) = p.arrived ? (0.0, 0.0) : remaining(p)
        var events: [NavigationEvent] = []
        // The final 0 at arrival is always reported; otherwise a change must reach the threshold (within a
        // micrometre / microsecond, so exact steps are not lost to rounding).
        if lastReportedSeconds.map({ abs(seconds - $0) >= timeUpdateThresholdSeconds - 1e-6 || (p.arrived && $0 != 0) })
            ?? true
        {
            lastReportedSeconds = seconds
            events.append(
                .remainingTime(
                    RemainingTimeEvent(
                        timestamp: time, remainingSeconds: seconds, remainingMeters: meters,
                        waypointIndex: destination.index)))
        }
        if lastReportedMeters.map({ abs(meters - $0) >= distanceUpdateThresholdMeters - 1e-6 || (p.arrived && $0 != 0) }
        ) ?? true {
            lastReportedMeters = meters
            events.append(
                .remainingDistance(
                    RemainingDistanceEvent(
                        timestamp: time, remainingMeters: meters,
                        remainingSeconds: seconds, waypointIndex: destination.index)))
        }
        return events
    }

    private func delayEvents(at time: Date) -> [NavigationEvent] {
        var category = DelayCategory.noData
        if let p = progress, !p.arrived {
            let c = p.time.delayComparison(atDistance: p.along)
            if c.covered && c.freeFlow > 0 {
                let ratio = c.traffic / c.freeFlow
                category =
                    ratio < configuration.lightBelowRatio
                    ? .light : (ratio < configuration.mediumBelowRatio ? .medium : .heavy)
            }
        }
        guard category != delayCategoryToNextDestination else { return [] }
        delayCategoryToNextDestination = category
        return [.delayCategory(DelayCategoryEvent(timestamp: time, category: category))]
    }

    // MARK: Speeds and traffic

    /// The fix's speed when present, else the straight-line displacement of the snapped positions over the last
    /// `derivedSpeedBaselineSeconds`, less what the position noise alone adds to it (see there).
    private func vehicleSpeed(_ snapped: SnappedFix) -> Double? {
        if let s = snapped.fix.speedMetersPerSecond, s >= 0 {
            recentPositions.removeAll()
            return s
        }
        let now = snapped.timestamp
        if let last = recentPositions.last, now.timeIntervalSince(last.time) > configuration.derivedSpeedMaximumGapSeconds {
            recentPositions.removeAll()
        }
        recentPositions.append((now, snapped.coordinate))
        // Keep the newest position at least a baseline old, and everything after it.
        while recentPositions.count > 2,
            now.timeIntervalSince(recentPositions[1].time) >= configuration.derivedSpeedBaselineSeconds
        {
            recentPositions.removeFirst()
        }
        guard let oldest = recentPositions.first else { return nil }
        let dt = now.timeIntervalSince(oldest.time)
        guard dt >= configuration.derivedSpeedMinimumBaselineSeconds else { return nil }
        let measured = Geodesy.distanceMeters(oldest.coordinate, snapped.coordinate)
        let sigma =
            configuration.derivedSpeedSigmaPerAccuracy
            * (snapped.fix.horizontalAccuracyMeters ?? configuration.defaultHorizontalAccuracyMeters)
        return max(0, measured * measured - 4 * sigma * sigma).squareRoot() / dt
    }

    private func updateOwnSpeed(_ speed: Double?, previous: SnappedFix?, now: Date) {
        guard let speed else { return }
        guard let old = ownSpeed, let previous else {
            ownSpeed = speed
            return
        }
        let dt = max(0, now.timeIntervalSince(previous.timestamp))
        let a = 1 - exp(-dt / configuration.ownSpeedSmoothingSeconds)
        ownSpeed = old + a * (speed - old)
    }

    /// The vehicle's own moving speed per way goes to the traffic model when it leaves the way.
    private func observeOwnTraffic(_ snapped: SnappedFix, speed: Double?, previous: SnappedFix?) {
        guard let way = snapped.osmWayID else { return }
        let dt = previous.map { snapped.timestamp.timeIntervalSince($0.timestamp) } ?? 0
        if var current = ownWay, current.id == way {
            if let speed, speed >= 2, dt > 0, dt <= 30 {
                current.movingSeconds += dt
                current.movingMeters += speed * dt
            }
            ownWay = current
            return
        }
        if let done = ownWay, done.movingSeconds >= configuration.ownObservationMinimumSeconds {
            traffic.observeOwn(
                TrafficObservation(
                    osmWayID: done.id, speedKph: done.movingMeters / done.movingSeconds * 3.6,
                    observedAt: snapped.timestamp))
            if var p = progress {
                p.time.applyTraffic(traffic, graph: graph, mode: travelMode, at: snapped.timestamp)
                progress = p
            }
        }
        ownWay = (way, 0, 0)
    }

    private func checkFasterRoute(_ snapped: SnappedFix, at time: Date) -> NavigationEvent? {
        guard isGuidanceActive, let p = progress, !p.arrived, traffic.feedGeneration != checkedFeedGeneration else {
            return nil
        }
        if let last = lastFasterRouteCheck, time.timeIntervalSince(last) < configuration.fasterRouteCheckIntervalSeconds
        {
            return nil
        }
        lastFasterRouteCheck = time
        checkedFeedGeneration = traffic.feedGeneration
        guard snapped.isOnRoute else { return nil }
        let current = remaining(p).seconds
        let result = route(to: destinations, at: time)
        guard let newLegs = result.legs, let first = newLegs.first else { return nil }
        let model = timeModel(ActiveLeg(leg: first, graph: graph), at: time)
        let saving = current - model.totalSeconds
        guard saving >= configuration.fasterRouteMinimumSavingSeconds,
            saving >= configuration.fasterRouteMinimumSavingFraction * current,
            first.edges != Array(p.route.leg.edges.suffix(first.edges.count))
        else { return nil }
        install(legs: newLegs, destinations: destinations, at: time)
        return .routeChanged(routeChangedEvent(.fasterRoute, at: time))
    }

    private func appendTraveled(_ c: Coordinate) {
        if let last = traveledPath.last, Geodesy.distanceMeters(last, c) < configuration.traveledPathMinimumStepMeters {
            return
        }
        traveledPath.append(c)
    }
}
