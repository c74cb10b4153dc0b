import Foundation
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import TestSupport
import Testing

@testable import ModerationService

private typealias W = ModerationWorld

/// Reports on every kind of object, their weights, the moderators' queue and actions,
/// appeals, suspensions and the audit log.
@Suite struct ModerationQueueRouterTests {
    @Test func everyKindOfObjectCanBeReportedByThoseShownIt() async throws {
        try await withModeration { world in
            let client = world.client
            let reporter = W.people[1]
            let token = try await world.token(reporter)
            struct Loose: Encodable {
                var targetType: String? = "post"
                var targetId: String? = W.post
                var reason: String? = "spam"
                var details: String?
            }
            let bad: [(Loose, HTTPResponse.Status)] = [
                (Loose(reason: "boring"), .badRequest), (Loose(reason: nil), .badRequest),
                (Loose(targetType: "comment"), .badRequest), (Loose(targetId: "p1"), .badRequest),
                (Loose(details: String(repeating: "d", count: 1001)), .badRequest),
                (Loose(targetId: "40000000-0000-4000-8000-000000000999"), .notFound),
            ]
            for (body, status) in bad {
                #expect(try await client.post("/v1/reports", body, token: token).status == status, "\(body)")
            }
            let kinds: [(ReportTargetType, String)] = [
                (.user, W.author), (.post, W.post), (.reply, W.reply), (.snap, W.snap), (.spot, W.spot),
                (.challengeClip, W.clip),
            ]
            for (type, id) in kinds {
                world.harness.clock.advance(by: 1)
                #expect(try await world.report(type, id, by: reporter).status == .created, "\(type)")
                #expect(try await world.report(type, id, by: reporter).status == .conflict, "\(type)")
            }
            // The message went to people[2] alone, the snap to people[1] alone.
            #expect(try await world.report(.message, W.message, by: W.people[2]).status == .created)
            #expect(try await world.report(.message, W.message, by: W.people[3]).status == .notFound)
            #expect(try await world.report(.snap, W.snap, by: W.people[2]).status == .notFound)
            // Not oneself, nor what one made.
            #expect(try await world.report(.post, W.post, by: W.author).error?.code == .validationFailed)
            #expect(try await world.report(.user, W.author, by: W.author).error?.code == .validationFailed)
            // Someone the author blocked reports neither them nor theirs.
            let block = try await client.post(
                "/v1/blocks", BlockCreate(userId: W.people[3]), token: try await world.token(W.author))
            #expect(block.status == .created)
            #expect(try await world.report(.post, W.post, by: W.people[3]).status == .notFound)
            #expect(try await world.report(.user, W.author, by: W.people[3]).status == .notFound)
            // The reporter sees theirs, newest first, each open.
            let mine = try await client.allPages("/v1/reports?limit=4", token: token, of: Report.self)
            #expect(mine.map(\.targetType) == kinds.map(\.0).reversed())
            #expect(mine.allSatisfy { $0.status == .open && $0.resolvedAt == nil })
            let stranger = try await world.token(W.people[5])
            #expect(try await client.get("/v1/reports", token: stranger).json(Page<Report>.self).items.isEmpty)
        }
    }

    @Test func trustedReportsHideWhatTheyReportAndADismissalShowsItAgain() async throws {
        try await withModeration { world in
            let client = world.client
            // Two reporters and a week-old account weigh 2.5: not yet.
            for reporter in [W.people[1], W.people[2], W.newcomer] {
                world.harness.clock.advance(by: 1)
                #expect(try await world.report(.reply, W.reply, by: reporter).status == .created)
            }
            #expect(try world.harness.outboxEvents(ContentHidden.self).isEmpty)
            world.harness.clock.advance(by: 1)
            #expect(try await world.report(.reply, W.reply, by: W.people[3]).status == .created)
            #expect(
                try world.harness.outboxEvents(ContentHidden.self) == [
                    ContentHidden(targetType: .reply, targetId: W.reply, reportCount: 4)
                ])
            let moderator = try await world.token(W.moderators[0])
            let queue = try await client.get("/v1/moderation/queue", token: moderator).json(Page<QueueItem>.self)
            let item = try #require(queue.items.first)
            #expect(queue.items.count == 1 && item.hidden && item.weight == 3.5)
            #expect(item.reports.map(\.weight) == [1, 1, 0.5, 1])
            #expect(item.subject?.text == "reply \(W.reply)" && item.ownerId == W.author)

            // A dismissal shows it again and closes its reports.
            #expect(try await world.act(.dismiss, on: .reply, W.reply).status == .created)
            #expect(
                try world.harness.outboxEvents(ContentRestored.self) == [
                    ContentRestored(targetType: .reply, targetId: W.reply)
                ])
            #expect(
                try await client.get("/v1/moderation/queue", token: moderator).json(Page<QueueItem>.self).items.isEmpty)
            let theirs = try await client.get("/v1/reports", token: try await world.token(W.people[1]))
                .json(Page<Report>.self)
            #expect(theirs.items.map(\.status) == [.dismissed] && theirs.items.first?.resolvedAt != nil)
            #expect(try await world.act(.dismiss, on: .reply, W.reply).status == .conflict)

            // A dismissed reporter's next report weighs 2/3; an upheld one's 3/2.
            #expect(try await world.report(.post, W.secondPost, by: W.people[1]).status == .created)
            #expect(try await world.report(.post, W.post, by: W.people[5]).status == .created)
            world.harness.clock.advance(by: 1)
            #expect(try await world.act(.remove, on: .post, W.post).status == .created)
            #expect(try await world.report(.spot, W.spot, by: W.people[5]).status == .created)
            let second = try await client.get("/v1/moderation/objects/post/\(W.secondPost)", token: moderator)
                .json(QueueItem.self)
            #expect(second.reports.map(\.weight).map { abs($0 - 2.0 / 3.0) < 1e-9 } == [true])
            let spot = try await client.get("/v1/moderation/objects/spot/\(W.spot)", token: moderator)
                .json(QueueItem.self)
            #expect(spot.reports.map(\.weight) == [1.5])
            let removed = try await client.get("/v1/moderation/objects/post/\(W.post)", token: moderator)
                .json(QueueItem.self)
            #expect(removed.hidden && removed.reports.map(\.status) == [.actioned])
            #expect(removed.priorActions.map(\.action) == [.remove, .dismiss])

            // The log: the hiding, by the rule, then both actions.
            let log = try await client.get("/v1/moderation/audit", token: moderator).json(Page<AuditEntry>.self)
            #expect(log.items.map(\.event) == ["action.remove", "action.dismiss", "content.hidden"])
            #expect(log.items.map(\.actorId) == [W.moderators[0], W.moderators[0], "system"])
        }
    }

    @Test func reportsAreLimitedPerReporterAndHour() async throws {
        try await withModeration(config: ["moderation.reportsPerHour": "3"]) { world in
            for (type, id) in [(ReportTargetType.post, W.post), (.reply, W.reply), (.spot, W.spot)] {
                #expect(try await world.report(type, id, by: W.people[1]).status == .created)
            }
            let refused = try await world.report(.challengeClip, W.clip, by: W.people[1])
            #expect(refused.status == .tooManyRequests && refused.error?.code == .rateLimitExceeded)
            #expect(refused.headers[.retryAfter] == "3600")
            #expect(try await world.report(.challengeClip, W.clip, by: W.people[2]).status == .created)
            world.harness.clock.advance(by: 3600)
            #expect(try await world.report(.challengeClip, W.clip, by: W.people[1]).status == .created)
        }
    }

    @Test func onlyModeratorsActAndEachActionReachesWhatItChanges() async throws {
        try await withModeration { world in
            let client = world.client
            let member = try await world.token(W.people[1])
            for path in [
                "/v1/moderation/queue", "/v1/moderation/reports", "/v1/moderation/appeals", "/v1/moderation/audit",
                "/v1/moderation/objects/post/\(W.post)",
            ] {
                #expect(try await client.get(path, token: member).error?.code == .forbidden, "\(path)")
            }
            let asMember = try await client.post(
                "/v1/moderation/actions",
                ModerationActionCreate(targetType: .post, targetId: W.post, action: .warn, reason: "x"), token: member)
            #expect(asMember.error?.code == .forbidden)
            let refused: [(ModerationActionKind, ReportTargetType, String, String, Int?, HTTPResponse.Status)] = [
                (.warn, .post, W.post, "  ", nil, .badRequest),
                (.warn, .post, W.post, String(repeating: "r", count: 501), nil, .badRequest),
                (.warn, .post, W.post, "ok", 5, .badRequest),
                (.suspend, .post, W.post, "ok", 0, .badRequest),
                (.suspend, .post, W.post, "ok", 8761, .badRequest),
                (.remove, .user, W.author, "ok", nil, .badRequest),
                (.warn, .post, "40000000-0000-4000-8000-000000000999", "ok", nil, .notFound),
                (.warn, .post, W.moderatorPost, "ok", nil, .forbidden),
                (.dismiss, .post, W.post, "ok", nil, .conflict),
            ]
            for (action, type, id, reason, hours, status) in refused {
                let response = try await world.act(action, on: type, id, reason: reason, hours: hours)
                #expect(response.status == status, "\(action) \(type) \(reason.prefix(5)) \(hours ?? -1)")
            }
            #expect(try world.harness.outboxTypes().isEmpty)

            let warned = try await world.act(.warn, on: .message, W.message, reason: "Spam in messages")
                .json(ModerationAction.self)
            #expect(warned.userId == W.author && warned.moderatorId == W.moderators[0] && warned.endsAt == nil)
            #expect(
                try world.harness.outboxEvents(UserWarned.self) == [
                    UserWarned(userId: W.author, actionId: warned.id, reason: "Spam in messages")
                ])
            world.harness.clock.advance(by: 1)
            let removed = try await world.act(.remove, on: .post, W.post, reason: "Graphic").json(ModerationAction.self)
            #expect(
                try world.harness.outboxEvents(ContentRemoved.self) == [
                    ContentRemoved(
                        targetType: .post, targetId: W.post, ownerId: W.author, actionId: removed.id, reason: "Graphic")
                ])
            #expect(try await world.act(.remove, on: .post, W.post).status == .conflict)
            world.harness.clock.advance(by: 1)
            let now = world.harness.clock.now()
            let suspended = try await world.act(.suspend, on: .user, W.author).json(ModerationAction.self)
            #expect(
                suspended.endsAt.map(JSONCoding.milliseconds)
                    == JSONCoding.milliseconds(now.addingTimeInterval(168 * 3600)))
            #expect(try world.harness.outboxEvents(UserSuspended.self).map(\.actionId) == [suspended.id])
            world.harness.clock.advance(by: 1)
            let banned = try await world.act(.ban, on: .user, W.author).json(ModerationAction.self)
            #expect(
                try world.harness.outboxEvents(UserBanned.self) == [
                    UserBanned(userId: W.author, actionId: banned.id, reason: "Against the rules")
                ])
            // The author sees what was done to them; nobody else sees it as theirs.
            let mine = try await client.allPages(
                "/v1/moderation/my-actions?limit=3", token: try await world.token(W.author), of: ModerationAction.self)
            #expect(mine.map(\.action) == [.ban, .suspend, .remove, .warn])
            #expect(
                try await client.get("/v1/moderation/my-actions", token: member).json(Page<ModerationAction>.self)
                    .items.isEmpty)
        }
    }

    @Test func streakSnapsPendingReportsAreActedOnOneAtATime() async throws {
        try await withModeration { world in
            let moderator = try await world.token(W.moderators[1])
            for reporter in W.people[1...2] {
                world.harness.clock.advance(by: 1)
                #expect(
                    try await world.report(.snap, W.snap, by: reporter).status
                        == (reporter == W.people[1] ? .created : .notFound))
                #expect(try await world.report(.user, W.author, by: reporter).status == .created)
            }
            let pending = try await world.client.allPages(
                "/v1/moderation/reports?limit=1", token: moderator, of: QueuedReport.self)
            #expect(pending.map(\.reporterId) == [W.people[1], W.people[1], W.people[2]])
            // Each row says what was reported and whose it is (StreakSnap's admin list; one
            // reporter's two reports share a time, so their order is the ids').
            let targets = pending.map { "\($0.targetType?.rawValue ?? "?") \($0.targetId ?? "?")" }.sorted()
            #expect(targets == ["snap \(W.snap)", "user \(W.author)", "user \(W.author)"])
            #expect(pending.allSatisfy { $0.targetOwnerId == W.author && $0.targetOwner?.id == W.author })
            let first = try #require(pending.last)
            let acted = try await world.client.send(
                .put, "/v1/moderation/reports/\(first.id)", ReportAction(action: .warn, reason: "Be kind"),
                token: moderator)
            #expect(acted.status == .created)
            #expect(try acted.json(ModerationAction.self).targetType == .user)
            // Both reports of the profile were resolved with it; the snap's waits.
            let left = try await world.client.get("/v1/moderation/reports", token: moderator).json(
                Page<QueuedReport>.self)
            #expect(left.items.count == 1)
            let again = try await world.client.send(
                .put, "/v1/moderation/reports/\(first.id)", ReportAction(action: .warn, reason: "Again"),
                token: moderator)
            #expect(again.status == .conflict)
            let unknown = try await world.client.send(
                .put, "/v1/moderation/reports/\(W.post)", ReportAction(action: .warn, reason: "x"), token: moderator)
            #expect(unknown.status == .notFound)
        }
    }

    @Test func aSuspendedAccountReadsAndAppealsUntilItsSuspensionRunsOut() async throws {
        try await withModeration { world in
            let client = world.client
            let suspended = try await world.act(.suspend, on: .post, W.post, reason: "Harassment", hours: 2)
                .json(ModerationAction.self)
            let until = try #require(suspended.endsAt)
            // What auth says of the author's sessions once it applied `user.suspended`.
            world.sessions.set(W.author, suspendedUntil: until)
            world.forgetSessions()
            let author = try await world.token(W.author)
            let report = ReportCreate(targetType: .post, targetId: W.moderatorPost, reason: .spam, details: nil)
            let write = try await client.post("/v1/reports", report, token: author)
            #expect(write.status == .forbidden && write.error?.code == .accountSuspended)
            #expect(try await client.get("/v1/reports", token: author).status == .ok)
            // What keeps them safe stays open: blocking someone.
            #expect(
                try await client.post("/v1/blocks", BlockCreate(userId: W.people[1]), token: author).status == .created)
            let appeal = try await client.post(
                "/v1/moderation/actions/\(suspended.id)/appeal", AppealCreate(statement: "It was a quote"),
                token: author)
            #expect(appeal.status == .created)

            await world.runner.runDue()
            #expect(try world.harness.outboxEvents(UserReinstated.self).isEmpty)
            world.harness.clock.advance(by: 2 * 3600)
            await world.runner.runDue()
            #expect(
                try world.harness.outboxEvents(UserReinstated.self) == [
                    UserReinstated(userId: W.author, actionId: suspended.id)
                ])
            // Past its end, writes go through whatever auth said before.
            let later = try await world.token(W.author)
            #expect(try await client.post("/v1/reports", report, token: later).status == .created)
            let log = try await client.get(
                "/v1/moderation/objects/post/\(W.post)/audit", token: try await world.token(W.moderators[1])
            ).json(Page<AuditEntry>.self)
            #expect(log.items.map(\.event) == ["suspension.ended", "appeal.made", "action.suspend"])
        }
    }

    @Test func anAppealIsDecidedOnceByAnotherModeratorAndAReversalUndoesTheAction() async throws {
        try await withModeration { world in
            let client = world.client
            for reporter in W.people[1...3] {
                #expect(try await world.report(.reply, W.reply, by: reporter).status == .created)
            }
            let action = try await world.act(.suspend, on: .reply, W.reply, hours: 24).json(ModerationAction.self)
            let author = try await world.token(W.author)
            let path = "/v1/moderation/actions/\(action.id)/appeal"
            #expect(try await client.post(path, AppealCreate(statement: "  "), token: author).status == .badRequest)
            let other = try await world.token(W.people[1])
            #expect(try await client.post(path, AppealCreate(statement: "Please"), token: other).status == .notFound)
            let appeal = try await client.post(path, AppealCreate(statement: "It was a film quote"), token: author)
                .json(Appeal.self)
            #expect(appeal.status == .pending && appeal.actionId == action.id)
            #expect(try await client.post(path, AppealCreate(statement: "Again"), token: author).status == .conflict)

            let (first, second) = (try await world.token(W.moderators[0]), try await world.token(W.moderators[1]))
            let pending = try await client.get("/v1/moderation/appeals", token: second).json(
                Page<ModerationAction>.self)
            #expect(pending.items.map(\.id) == [action.id] && pending.items.first?.appeal?.id == appeal.id)
            let decision = "/v1/moderation/appeals/\(appeal.id)/decision"
            let byActor = try await client.post(decision, AppealDecision(outcome: .reverse, reason: "x"), token: first)
            #expect(byActor.error?.code == .forbidden)
            let decided = try await client.post(
                decision, AppealDecision(outcome: .reverse, reason: "A quote, not a threat"), token: second)
            #expect(decided.status == .ok)
            let reversed = try decided.json(ModerationAction.self)
            #expect(reversed.reversedAt != nil && reversed.appeal?.status == .reversed)
            #expect(reversed.appeal?.decidedBy == W.moderators[1])
            let again = try await client.post(decision, AppealDecision(outcome: .uphold, reason: "x"), token: second)
            #expect(again.status == .conflict)
            #expect(
                try await client.get("/v1/moderation/appeals", token: second).json(Page<ModerationAction>.self).items
                    .isEmpty)

            // The suspension is lifted, the reply shown again, the author told; the reports
            // count as dismissed.
            #expect(
                try world.harness.outboxEvents(UserReinstated.self) == [
                    UserReinstated(userId: W.author, actionId: action.id)
                ])
            #expect(
                try world.harness.outboxEvents(ContentRestored.self) == [
                    ContentRestored(targetType: .reply, targetId: W.reply)
                ])
            #expect(try world.harness.outboxEvents(AppealDecided.self).map(\.outcome) == [.reverse])
            let theirs = try await client.get("/v1/reports", token: other).json(Page<Report>.self)
            #expect(theirs.items.map(\.status) == [.dismissed])
            // The suspension's end has nothing left to do.
            world.harness.clock.advance(by: 25 * 3600)
            await world.runner.runDue()
            #expect(try world.harness.outboxEvents(UserReinstated.self).count == 1)

            let log = try await client.get(
                "/v1/moderation/audit?userId=\(W.author)", token: try await world.token(W.moderators[1])
            )
            .json(Page<AuditEntry>.self)
            #expect(log.items.map(\.event) == ["appeal.reversed", "appeal.made", "action.suspend", "content.hidden"])
            #expect(log.items.map(\.actorId) == [W.moderators[1], W.author, W.moderators[0], "system"])
            #expect(log.items.first?.reason == "A quote, not a threat")
            let moderator = try await world.token(W.moderators[1])
            for bad in ["/v1/moderation/audit?userId=x", "/v1/moderation/audit?cursor=x"] {
                #expect(try await client.get(bad, token: moderator).status == .badRequest, "\(bad)")
            }
            #expect(
                try await client.get("/v1/moderation/objects/comment/\(W.post)/audit", token: moderator).status
                    == .notFound)
            // Nothing changes or removes a line of the log.
            let database = try world.harness.database()
            #expect(throws: (any Error).self) {
                try database.write { db in try db.execute(sql: "UPDATE audit_entry SET reason = 'edited'") }
            }
            #expect(throws: (any Error).self) {
                try database.write { db in try db.execute(sql: "DELETE FROM audit_entry") }
            }
        }
    }

    @Test func screeningsHeldMediaWaitsInTheQueueForAModerator() async throws {
        try await withModeration { world in
            let (released, removed) = ("90000000-0000-4000-8000-000000000001", "90000000-0000-4000-8000-000000000002")
            let database = try world.harness.database()
            for id in [released, removed] {
                try await database.write { db in
                    try ModerationStore.mediaHeld(
                        MediaHeld(mediaId: id, ownerId: W.author, score: 0.93, labels: ["nudity"]),
                        at: world.harness.clock.now(), in: db)
                }
                world.harness.clock.advance(by: 1)
            }
            let moderator = try await world.token(W.moderators[0])
            let queue = try await world.client.get("/v1/moderation/queue", token: moderator).json(Page<QueueItem>.self)
            #expect(queue.items.map(\.targetId) == [released, removed])
            #expect(queue.items.allSatisfy { $0.targetType == .media && $0.hidden && $0.reports.isEmpty })
            // People report what shows it, not the held file.
            #expect(try await world.report(.media, released, by: W.people[1]).status == .badRequest)
            #expect(try await world.act(.dismiss, on: .media, released).status == .created)
            #expect(
                try world.harness.outboxEvents(ContentRestored.self) == [
                    ContentRestored(targetType: .media, targetId: released)
                ])
            #expect(try await world.act(.remove, on: .media, removed, reason: "Nudity").status == .created)
            #expect(try world.harness.outboxEvents(ContentRemoved.self).map(\.targetId) == [removed])
            #expect(
                try await world.client.get("/v1/moderation/queue", token: moderator).json(Page<QueueItem>.self).items
                    .isEmpty)
            let log = try await world.client.get("/v1/moderation/objects/media/\(removed)/audit", token: moderator)
                .json(Page<AuditEntry>.self)
            #expect(log.items.map(\.event) == ["action.remove", "media.held"])
            #expect(log.items.last?.reason == "screening scored 0.93 (nudity)")
        }
    }

    @Test(arguments: [
        (0, 0, false, 1.0), (0, 0, true, 0.5), (1, 0, false, 1.5), (2, 0, false, 2.0), (9, 0, false, 2.0),
        (0, 1, false, 2.0 / 3.0), (0, 6, false, 0.25), (0, 6, true, 0.25), (4, 4, true, 0.5),
    ])
    func aReportWeighsItsReportersRecord(upheld: Int, dismissed: Int, isNew: Bool, weight: Double) {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let created = now.addingTimeInterval(isNew ? -86400 : -8 * 86400)
        let posted = now.addingTimeInterval(-2 * 86400)
        let computed = ReporterTrust.weight(
            upheld: upheld, dismissed: dismissed, accountCreatedAt: created, objectCreatedAt: posted, now: now)
        #expect(abs(computed - weight) < 1e-9)
    }

    /// A new account counts in full on what was posted after it joined: only accounts made to
    /// pile on something that already existed weigh less.
    @Test func aNewAccountWeighsLessOnlyOnWhatWasPostedBeforeIt() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let joined = now.addingTimeInterval(-3600)
        func weight(posted: Date?) -> Double {
            ReporterTrust.weight(upheld: 0, dismissed: 0, accountCreatedAt: joined, objectCreatedAt: posted, now: now)
        }
        #expect(weight(posted: now.addingTimeInterval(-60)) == 1)
        #expect(weight(posted: now.addingTimeInterval(-7200)) == 0.5)
        #expect(weight(posted: nil) == 0.5)
    }
}
