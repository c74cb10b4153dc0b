import Foundation
import ServiceHTTP
import TestSupport
import Testing

/// SkateHubba's whole challenge over the real executables, on the notifications stack (its
/// fake FCM): Kai challenges Leo; both record a real 15-second clip and upload it with tuspy
/// (a tus client from outside the project); media validates each and feed moves the
/// challenge on media's word; Max and Noa vote; the clock moves past the voting deadline and
/// feed's job computes the result once. The result and both standings are right, and every
/// activity arrived once, in the centre and at the fake FCM.
struct SkateHubbaStoryFlow {
    let flow: SliceFlow
    let fake: FakePushProviders
    var stack: Stack { flow.stack }

    static let place = (lat: 34.0522, lon: -118.2437)

    static let tuspyScript = #"""
        import sys
        from tusclient import client
        url, token, path = sys.argv[1:4]
        tus = client.TusClient(url, headers={"Authorization": "Bearer " + token})
        uploader = tus.uploader(path, chunk_size=128 * 1024,
                                metadata={"filename": "clip.mp4", "filetype": "video/mp4", "purpose": "challenge_clip"})
        uploader.upload()
        print(uploader.url)
        """#

    /// Uploads `video` as a challenge clip with tuspy; the media id once media has it.
    func uploadClip(_ video: Data, as person: Person) async throws -> String {
        let work = stack.directory.url.appendingPathComponent("clips-\(person.name)", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let file = work.appendingPathComponent("clip.mp4")
        try video.write(to: file)
        let output = LineCollector()
        // The stack's own authority signs the gateway's certificate.
        let authority = stack.directory.url.appendingPathComponent("pki/ca.crt").path
        let python = try ChildProcess(
            name: "tuspy", executable: URL(fileURLWithPath: "/usr/bin/env"),
            arguments: ["python3", "-c", Self.tuspyScript, stack.url("/v1/uploads"), person.token, file.path],
            environment: ProcessInfo.processInfo.environment.merging(
                ["REQUESTS_CA_BUNDLE": authority, "SSL_CERT_FILE": authority]) { $1 }, onLine: output.append)
        #expect(await python.waitForExit() == 0, "tuspy failed:\n\(output.lines.joined(separator: "\n"))")
        let location = try #require(output.lines.last.flatMap { URL(string: $0) }?.path, "\(output.lines)")
        var media: String?
        #expect(
            await flow.eventually {
                media = try? await flow.call(.GET, location, as: person).decode(UploadStatus.self).mediaId
                return media != nil
            })
        return try #require(media)
    }

    func challenge(_ id: String, as person: Person) async throws -> Challenge {
        try await flow.call(.GET, "/v1/challenges/\(id)", as: person).decode(Challenge.self)
    }

    /// Waits until `person` sees the challenge in `status`.
    func waitFor(_ status: ChallengeStatus, _ id: String, as person: Person) async throws {
        var seen: ChallengeStatus?
        let reached = await flow.eventually {
            seen = try? await challenge(id, as: person).status
            return seen == status
        }
        #expect(reached, "waiting for \(status.rawValue), saw \(seen?.rawValue ?? "nothing")")
    }

    func vote(_ id: String, by person: Person, for choice: Person) async throws {
        let voted = try await flow.call(
            .PUT, "/v1/challenges/\(id)/vote", as: person, json: ChallengeVoteRequest(votedFor: choice.id))
        #expect(voted.status == 200, "\(voted.text)")
    }

    func run() async throws {
        var kai = try await flow.signUp("Kai")
        var leo = try await flow.signUp("Leo")
        var max = try await flow.signUp("Max")
        var noa = try await flow.signUp("Noa")
        let phones = [
            kai.id: "fcm:APA91b" + String(repeating: "Kai_-1", count: 20),
            leo.id: "fcm:APA91b" + String(repeating: "Leo_-2", count: 20),
        ]
        for person in [kai, leo] {
            let registered = try await flow.call(
                .POST, "/v1/devices", as: person,
                json: DeviceRegistration(provider: .fcm, token: phones[person.id] ?? "", platform: "android"))
            #expect(registered.status == 201, "\(registered.text)")
        }

        // Kai challenges Leo at a place; only the two of them see it before voting.
        let created = try await flow.acknowledged(
            .POST, "/v1/challenges", as: kai,
            json: CreateChallengeRequest(
                opponent: leo.id, rules: ChallengeRules(trick: "kickflip"), latitude: Self.place.lat,
                longitude: Self.place.lon), headers: [("idempotency-key", "challenge-kai-leo")])
        #expect(created.status == 201, "\(created.text)")
        let id = try created.decode(Challenge.self).id
        #expect(try await flow.call(.GET, "/v1/challenges/\(id)", as: max).status == 404)

        // Both record 15 s and upload with tuspy; feed moves on media's word.
        let video = try await TestVideos.encoded(seconds: 15)
        let kaisClip = try await uploadClip(video, as: kai)
        let attached = try await flow.call(
            .PUT, "/v1/challenges/\(id)/clip", as: kai, json: AttachClipRequest(mediaId: kaisClip))
        #expect(attached.status == 200, "\(attached.text)")
        try await waitFor(.creatorReady, id, as: leo)
        // Kai's clip is Leo's to play now, nobody else's before voting opens.
        #expect(try await flow.call(.GET, "/v1/media/\(kaisClip)", as: leo).status == 200)
        #expect(try await flow.call(.GET, "/v1/media/\(kaisClip)", as: max).status == 404)
        let leosClip = try await uploadClip(video, as: leo)
        let accepted = try await flow.call(
            .PUT, "/v1/challenges/\(id)/clip", as: leo, json: AttachClipRequest(mediaId: leosClip))
        #expect(accepted.status == 200, "\(accepted.text)")
        try await waitFor(.voting, id, as: max)

        // Voting: others only; both clips are theirs to play now (media hears of it from feed's
        // outbox, a moment after the challenge says voting).
        #expect(await flow.eventually { (try? await flow.call(.GET, "/v1/media/\(leosClip)", as: max).status) == 200 })
        // The voting card draws from the challenge alone: both skaters' names and each clip's
        // poster and playback URL.
        var card: Challenge?
        #expect(
            await flow.eventually {
                card = try? await challenge(id, as: max)
                return card?.clips[leo.id]?.media?.playbackURL != nil
            }, "Leo's clip never showed on the voting card: \(String(describing: card))")
        #expect(card?.people?.map(\.displayName) == ["Kai", "Leo"])
        let clip = try #require(card?.clips[leo.id]?.media)
        #expect(clip.id == leosClip && clip.kind == .video && clip.posterURL != nil && clip.playbackURL != nil)
        #expect(try await flow.call(.GET, try #require(clip.posterURL)).status == 200)
        let near = "/v1/challenges/voting?lat=\(Self.place.lat)&lon=\(Self.place.lon + 0.001)&radius_m=1000"
        #expect(try await flow.call(.GET, near, as: max).decode(Page<Challenge>.self).items.map(\.id) == [id])
        let refused = try await flow.call(
            .PUT, "/v1/challenges/\(id)/vote", as: kai, json: ChallengeVoteRequest(votedFor: kai.id))
        #expect(refused.status == 403)
        try await vote(id, by: max, for: kai)
        try await vote(id, by: noa, for: leo)
        try await vote(id, by: noa, for: kai)  // changed her mind
        #expect(try await challenge(id, as: noa).voting?.result == nil)

        // A day later (every clock moved; tokens renewed by signing in again) the job has
        // computed the result once.
        let later = stack.now.addingTimeInterval(25 * 3600)
        try await stack.moveClock(to: later)
        fake.moveClock(to: later)
        (kai, leo, max, noa) = (
            try await flow.signIn(kai), try await flow.signIn(leo), try await flow.signIn(max),
            try await flow.signIn(noa)
        )
        try await waitFor(.completed, id, as: max)
        let result = try await challenge(id, as: leo).voting?.result
        #expect(result == ChallengeResult(winner: kai.id, creatorVotes: 2, opponentVotes: 0))
        let kaisStats = try await flow.call(.GET, "/v1/challenges/stats/\(kai.id)", as: max).decode(ChallengeStats.self)
        #expect((kaisStats.points, kaisStats.wins, kaisStats.streak) == (3, 1, 1))
        let leosStats = try await flow.call(.GET, "/v1/challenges/stats/\(leo.id)", as: max).decode(ChallengeStats.self)
        #expect((leosStats.points, leosStats.losses, leosStats.streak) == (0, 1, 0))
        // Kai's profile shows his standing (feed → auth).
        #expect(
            await flow.eventually {
                let profile = try? await flow.call(.GET, "/v1/users/\(kai.id)", as: max).decode(PublicProfile.self)
                return profile?.stats.challenges == kaisStats
            }, "Kai's profile never showed his standing")

        // Every activity once, in the centre and pushed once to each phone.
        let expected: [(Person, [NotificationType])] = [
            (kai, [.challengeAccepted, .opponentUploaded, .votingStarted, .challengeWon]),
            (leo, [.challengeReceived, .opponentUploaded, .votingStarted, .challengeLost]),
        ]
        for (person, types) in expected {
            var listed: [AppNotification] = []
            #expect(
                await flow.eventually {
                    listed =
                        (try? await flow.notifications(of: person))?.filter {
                            $0.link?.hasPrefix("/challenge/") == true
                        } ?? []
                    return listed.count >= types.count
                })
            #expect(
                listed.map(\.type).sorted { $0.rawValue < $1.rawValue } == types.sorted { $0.rawValue < $1.rawValue })
            let ids = Set(listed.map(\.id))
            var pushed: [String] = []
            #expect(
                await flow.eventually {
                    pushed = fake.pushes.filter { $0.token == phones[person.id] }.compactMap(
                        NotificationFlow.notificationID)
                    return Set(pushed) == ids
                }, "\(person.name): pushed \(pushed.count) of \(ids.count)")
            #expect(pushed.count == ids.count, "\(person.name): each pushed once")
        }
        let won = try #require(try await flow.notifications(of: kai).first { $0.type == .challengeWon })
        #expect(won.link == "/challenge/\(id)/result" && won.body == "You beat Leo 2–0")

        // `spot_nearby`, the geofence trigger: Max's spot is near where Kai's phone reports; he
        // hears of it once, in the centre and on his phone, linking the spot.
        let made = try await flow.acknowledged(
            .POST, "/v1/spots", as: max,
            json: SpotInput(
                name: "Harbour Ledges", description: "Ledges by the water",
                location: SpotLocation(lat: Self.place.lat, lng: Self.place.lon, address: nil),
                difficulty: .intermediate, tags: []), headers: [("idempotency-key", "spot-max-harbour")])
        #expect(made.status == 201, "\(made.text)")
        let spotID = try made.decode(Spot.self).id
        let here = CheckInRequest(lat: Self.place.lat + 0.001, lng: Self.place.lon)
        let told = try await flow.call(.POST, "/v1/spots/nearby", as: kai, json: here)
        #expect(told.status == 200, "\(told.text)")
        let answer = try told.decode(SpotNearbyAnswer.self)
        #expect(answer.spot?.id == spotID && answer.notified)
        let again = try await flow.call(.POST, "/v1/spots/nearby", as: kai, json: here).decode(SpotNearbyAnswer.self)
        #expect(again.spot?.id == spotID && !again.notified)
        var nearby: AppNotification?
        #expect(
            await flow.eventually {
                nearby = try? await flow.notifications(of: kai).first { $0.type == .spotNearby }
                return nearby != nil
            }, "Kai was never told of the spot")
        #expect(nearby?.link == "/spots/\(spotID)" && nearby?.body == "Harbour Ledges is close to you")
        #expect(
            await flow.eventually {
                fake.pushes.contains {
                    $0.token == phones[kai.id] && NotificationFlow.notificationID(of: $0) == nearby?.id
                }
            }, "the spot_nearby push never reached Kai's phone")
    }
}
