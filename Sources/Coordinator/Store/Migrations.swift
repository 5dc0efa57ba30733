import GRDB

/// The schema, as append-only migrations: a released migration is never edited, a change is
/// a new one. GRDB records which have run in `grdb_migrations`.
enum Migrations {
    /// Schema steps recorded in the database that this version does not have: the database was
    /// migrated by a newer cull (empty for a new or an older database).
    static func unknownMigrations(_ db: Database) throws -> [String] {
        guard try db.tableExists("grdb_migrations") else { return [] }
        let known = Set(migrator.migrations)
        return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations").filter { !known.contains($0) }.sorted()
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: libraries, scans, photos, jobs, groups") { db in
            try db.execute(sql: """
                CREATE TABLE libraries (
                    id INTEGER PRIMARY KEY,
                    root TEXT NOT NULL UNIQUE,
                    -- The generation of the library's newest scan: only results for it are stored.
                    current_generation INTEGER NOT NULL DEFAULT 0
                );

                CREATE TABLE scans (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    library_id INTEGER NOT NULL REFERENCES libraries(id),
                    generation INTEGER NOT NULL,
                    -- walking is folded into running (walk_complete says whether the walk ended):
                    -- running, done, cancelled, superseded, failed
                    state TEXT NOT NULL,
                    walk_complete INTEGER NOT NULL DEFAULT 0,
                    total INTEGER NOT NULL DEFAULT 0,
                    done INTEGER NOT NULL DEFAULT 0,
                    failed INTEGER NOT NULL DEFAULT 0,
                    started_at REAL NOT NULL,
                    finished_at REAL,
                    error TEXT,
                    UNIQUE (library_id, generation)
                );

                CREATE TABLE jobs (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    scan_id INTEGER NOT NULL REFERENCES scans(id),
                    -- The attempt token of the dispatch in flight; results must echo it.
                    attempt INTEGER NOT NULL DEFAULT 0,
                    -- Dispatches so far; at the limit a job is split photo by photo.
                    dispatches INTEGER NOT NULL DEFAULT 0,
                    -- queued, dispatched, done, split, abandoned
                    state TEXT NOT NULL,
                    worker_id TEXT,
                    photo_count INTEGER NOT NULL
                );
                CREATE INDEX jobs_by_scan_state ON jobs(scan_id, state);

                CREATE TABLE photos (
                    id INTEGER PRIMARY KEY,
                    library_id INTEGER NOT NULL REFERENCES libraries(id),
                    path TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    mtime_ns INTEGER NOT NULL,
                    -- The generation of the last scan whose walk found the file.
                    seen_generation INTEGER NOT NULL,
                    -- pending, analysed, failed
                    status TEXT NOT NULL,
                    -- While pending: the job that will analyse it.
                    job_id INTEGER,
                    -- Who wrote the outcome: generation, attempt and analysis pipeline version.
                    analysed_generation INTEGER,
                    analysed_attempt INTEGER,
                    pipeline_version INTEGER,
                    sha256 BLOB,
                    phash INTEGER,
                    dhash INTEGER,
                    width INTEGER,
                    height INTEGER,
                    format TEXT,
                    orientation INTEGER,
                    capture_time TEXT,
                    camera_make TEXT,
                    camera_model TEXT,
                    sharpness REAL,
                    mean_luma REAL,
                    error_kind TEXT,
                    error_message TEXT,
                    UNIQUE (library_id, path)
                );
                CREATE INDEX photos_by_job ON photos(job_id) WHERE job_id IS NOT NULL;
                CREATE INDEX photos_by_seen ON photos(library_id, seen_generation, status);

                CREATE TABLE groups (
                    id INTEGER PRIMARY KEY,
                    scan_id INTEGER NOT NULL REFERENCES scans(id),
                    number INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    keeper_photo_id INTEGER NOT NULL REFERENCES photos(id),
                    UNIQUE (scan_id, number)
                );

                CREATE TABLE group_members (
                    group_id INTEGER NOT NULL REFERENCES groups(id),
                    photo_id INTEGER NOT NULL REFERENCES photos(id),
                    distance INTEGER NOT NULL,
                    is_keeper INTEGER NOT NULL,
                    PRIMARY KEY (group_id, photo_id)
                );

                -- Monotonic sequences that must survive restarts (attempt tokens).
                CREATE TABLE sequences (
                    name TEXT PRIMARY KEY,
                    value INTEGER NOT NULL
                );
                INSERT INTO sequences (name, value) VALUES ('attempt', 0);
                """)
        }
        migrator.registerMigration("v2: which job wrote each outcome") { db in
            // With analysed_attempt this lets an audit prove that every stored outcome came from
            // its job's current dispatch (no stale attempt ever wrote).
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN analysed_job_id INTEGER")
        }
        migrator.registerMigration("v3: window hashes and layout thumbnails") { db in
            // Pipeline 3's crop- and overlay-tolerant features (docs/FEATURES.md).
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN window_phashes BLOB")
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN thumbnail BLOB")
        }
        migrator.registerMigration("v4: preview provenance and verification jobs") { db in
            // from_preview: the row's pixel features may come from an embedded preview, which
            // can be stale; grouping has such near-group members analysed again from their
            // main image (full_decode jobs) before it stores the group. Rows written before
            // this column do not say where their features came from: they count as possible
            // previews, so they are verified if they ever join a near group (and only then).
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN from_preview INTEGER NOT NULL DEFAULT 0")
            try db.execute(sql: "UPDATE photos SET from_preview = 1 WHERE status = 'analysed'")
            try db.execute(sql: "ALTER TABLE jobs ADD COLUMN full_decode INTEGER NOT NULL DEFAULT 0")
            try db.execute(sql: "ALTER TABLE scans ADD COLUMN verifying INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v5: grouping digests") { db in
            // What a finished scan grouped (`CullStore.groupingDigest`): a rescan whose input and
            // rules are the same keeps those groups instead of grouping again.
            try db.execute(sql: "ALTER TABLE scans ADD COLUMN grouping_digest TEXT")
            try db.execute(sql: "CREATE INDEX scans_by_digest ON scans (library_id, grouping_digest)")
        }
        migrator.registerMigration("v6: feature blobs in a table of their own") { db in
            // A photos row carried its 1 KiB thumbnail and 400 bytes of window hashes inline, so
            // two or three rows shared a page, and a rescan that marks every unchanged row seen
            // rewrote the whole table (56,545 page writes for 22,000 files). Narrow rows make
            // that a few thousand; grouping reads the blobs by a join.
            try db.execute(sql: """
                CREATE TABLE photo_features (
                    photo_id INTEGER PRIMARY KEY REFERENCES photos(id),
                    window_phashes BLOB,
                    thumbnail BLOB
                );
                INSERT INTO photo_features (photo_id, window_phashes, thumbnail)
                    SELECT id, window_phashes, thumbnail FROM photos WHERE window_phashes IS NOT NULL OR thumbnail IS NOT NULL;
                """)
            // The photos table is built anew rather than altered: DROP COLUMN would leave its
            // pages as sparse as before (the rescan as slow) until a VACUUM, which cannot run in
            // a migration. SQLite's own recipe: a new table, the rows copied, the old one
            // dropped, the new one renamed (other tables' references follow the name).
            let columns = """
                id, library_id, path, size, mtime_ns, seen_generation, status, job_id, analysed_generation, analysed_attempt,
                pipeline_version, sha256, phash, dhash, width, height, format, orientation, capture_time, camera_make,
                camera_model, sharpness, mean_luma, error_kind, error_message, analysed_job_id, from_preview
                """
            try db.execute(sql: """
                CREATE TABLE photos_narrow (
                    id INTEGER PRIMARY KEY,
                    library_id INTEGER NOT NULL REFERENCES libraries(id),
                    path TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    mtime_ns INTEGER NOT NULL,
                    seen_generation INTEGER NOT NULL,  -- the last scan whose walk found the file
                    status TEXT NOT NULL,              -- pending, analysed, failed
                    job_id INTEGER,                    -- while pending: the job that will analyse it
                    analysed_generation INTEGER,       -- who wrote the outcome
                    analysed_attempt INTEGER,
                    pipeline_version INTEGER,
                    sha256 BLOB,
                    phash INTEGER,
                    dhash INTEGER,
                    width INTEGER,
                    height INTEGER,
                    format TEXT,
                    orientation INTEGER,
                    capture_time TEXT,
                    camera_make TEXT,
                    camera_model TEXT,
                    sharpness REAL,
                    mean_luma REAL,
                    error_kind TEXT,
                    error_message TEXT,
                    analysed_job_id INTEGER,
                    from_preview INTEGER NOT NULL DEFAULT 0,
                    UNIQUE (library_id, path)
                );
                INSERT INTO photos_narrow (\(columns)) SELECT \(columns) FROM photos ORDER BY id;
                DROP TABLE photos;
                ALTER TABLE photos_narrow RENAME TO photos;
                CREATE INDEX photos_by_job ON photos(job_id) WHERE job_id IS NOT NULL;
                CREATE INDEX photos_by_seen ON photos(library_id, seen_generation, status);
                """)
        }
        migrator.registerMigration("v7: mirror hashes, content boxes and chroma layouts") { db in
            // Pipeline 4's features (docs/FEATURES.md): the mirror image's pHash, the part of the
            // frame inside plain borders with its pHash, and the 8×8 chroma layout. NULL for rows
            // from earlier pipelines: those meet mirrored and bordered copies, and are told from
            // colour variants, only once analysed again.
            try db.execute(sql: "ALTER TABLE photo_features ADD COLUMN mirror_phash INTEGER")
            try db.execute(sql: "ALTER TABLE photo_features ADD COLUMN content_box BLOB")
            try db.execute(sql: "ALTER TABLE photo_features ADD COLUMN content_phash INTEGER")
            try db.execute(sql: "ALTER TABLE photo_features ADD COLUMN chroma BLOB")
        }
        migrator.registerMigration("v8: the scan's photos indexed by status, not by the last scan that saw them") { db in
            // A rescan marks every unchanged photo seen (`seen_generation`): with an index on
            // that column every mark also moved the photo's index entry. Measured with the
            // sqlite3 shell on 220,000 rows, marking all of them: 0.73–0.85 s with the index,
            // 0.44 s without; a whole rescan 1.98–2.23 s against 2.60–2.80 s, alternating. The
            // queries that select a scan's photos (library, generation, status) read the status
            // index and check the generation on the row: a status changes once per analysis,
            // not once per rescan.
            try db.execute(sql: "DROP INDEX photos_by_seen")
            try db.execute(sql: "CREATE INDEX photos_by_status ON photos(library_id, status)")
        }
        migrator.registerMigration("v9: keepers chosen by a policy, with their reasons; which file each path is; walk filters") { db in
            // The scan's keeper chain and reference folders (`KeeperPolicy`; NULL: the default
            // chain, no reference folders), why each group's keeper won, and what each member
            // is to it. Groups stored before have no reasons: their listings show none.
            try db.execute(sql: "ALTER TABLE scans ADD COLUMN keeper_rules TEXT")
            try db.execute(sql: "ALTER TABLE scans ADD COLUMN reference_folders TEXT")  // a JSON array of absolute paths
            try db.execute(sql: "ALTER TABLE groups ADD COLUMN keeper_reason TEXT")
            try db.execute(sql: "ALTER TABLE group_members ADD COLUMN relation TEXT")
            // Which file a path is (st_dev, st_ino) and its hard-link count, written by every
            // walk (NULL until one has): two paths of one file are one photo.
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN device INTEGER")
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN inode INTEGER")
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN links INTEGER")
            // The scan's `WalkFilter` as JSON (NULL: the defaults), so a resumed walk takes the
            // same files.
            try db.execute(sql: "ALTER TABLE scans ADD COLUMN walk_filter TEXT")
            // A rescan that changed nothing keeps an earlier scan's groups by naming that scan
            // (NULL: its groups are its own). Copying them wrote 130,000 rows in a rescan of
            // 220,000 photos with 35,000 groups.
            try db.execute(sql: "ALTER TABLE scans ADD COLUMN groups_of INTEGER REFERENCES scans(id)")
        }
        migrator.registerMigration("v10: photos of a format this cull did not support are analysed again (TIFF, camera raw)") { db in
            // An "unsupported" failure is permanent for the pipeline that recorded it: a rescan
            // skips the unchanged file. Workers now read TIFF and camera raw files, so those rows are released: the
            // next scan that walks them analyses them (a format still unsupported fails again,
            // once). The pipeline version itself stays: nothing analysed needs redoing.
            try db.execute(sql: "UPDATE photos SET pipeline_version = NULL WHERE status = 'failed' AND error_kind = 'unsupported'")
        }
        migrator.registerMigration("v11: a digest of a file's head and tail, kept apart from the whole file's") { db in
            // Workers analysing a JPEG from its EXIF thumbnail read only the head and the tail of
            // the file, and send a digest of those (`Features.sha256_head_tail`). It is stored
            // here, never in `sha256`, which stays the whole file's: the only digest that calls
            // two files identical. Rows from before hold whole-file digests.
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN sha256_head_tail BLOB")
        }
        migrator.registerMigration("v12: WebP photos are analysed again at full range (pipeline 7)") { db in
            // Pipeline 7 changes what workers compute for WebP only: libwebp's video-range
            // samples are now expanded to full range (`VideoRange`). Every other row of pipeline 6
            // is what pipeline 7 computes, so it is stamped 7 and a rescan keeps it; WebP rows
            // keep 6 and the next scan that walks them analyses them again.
            try db.execute(sql: "UPDATE photos SET pipeline_version = 7 WHERE pipeline_version = 6 AND (status != 'analysed' OR format IS NOT 'webp')")
        }
        migrator.registerMigration("v13: a scan counts the files its walk sent to analysis, and the unchanged ones among them") { db in
            // `cull run`'s summary says how many files a run analysed: counted as the walk
            // queues them, not by a pass over every photo row afterwards. Files whose size and
            // mtime are unchanged but whose result came from an older pipeline (or from a
            // failure that may pass) are analysed again, and reported apart from new and changed
            // files, so that an upgrade does not read as if every photo had changed.
            try db.execute(sql: "ALTER TABLE scans ADD COLUMN to_analyse INTEGER NOT NULL DEFAULT 0")
            try db.execute(sql: "ALTER TABLE scans ADD COLUMN analysed_again INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v14: the walk's marks in a narrow table of their own") { db in
            // Every walk marks each file it finds with its scan's generation: that is how a
            // restarted walk, grouping and the listings know a scan's photos. The mark lived in
            // the photos row (about 190 bytes, some 22 rows to a page), so an unchanged rescan
            // rewrote every page of the table: 9,835 pages for the 220,000 files of the
            // end-to-end library, 81 MB written by the process and 352 MB at the block layer
            // (bench/RESULTS.md, "Rescans"). Here a mark is a row of two integers, a few hundred
            // to a page, and the photos row of an unchanged file is only read.
            try db.execute(sql: """
                CREATE TABLE photo_seen (
                    photo_id INTEGER PRIMARY KEY REFERENCES photos(id),
                    seen_generation INTEGER NOT NULL  -- the last scan whose walk found the file
                );
                INSERT INTO photo_seen (photo_id, seen_generation) SELECT id, seen_generation FROM photos ORDER BY id;
                ALTER TABLE photos DROP COLUMN seen_generation;
                """)
        }
        migrator.registerMigration("v15: the software that saved each photo, and when (an editor's export is no camera original)") { db in
            // EXIF Software and DateTime (ModifyDate), as workers send them (`Features.software`,
            // `modify_time`): the keeper chain does not count a file an editor saved as a camera
            // original (`SavedByEditor`). Rows analysed before hold NULL, and are judged on
            // their other EXIF fields as before until they are analysed again.
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN software TEXT")
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN modify_time TEXT")
        }
        migrator.registerMigration("v16: exposure settings (a bracket's frames share a capture time, not their settings)") { db in
            // EXIF ExposureTime, FNumber, ISO and ExposureBiasValue, as workers send them
            // (`Features.exposure_time`…): photos taken at one time with other settings are
            // other shots (`ShotSettings`). Rows analysed before hold NULL: told apart by their
            // capture times alone, as before.
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN exposure_time REAL")
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN f_number REAL")
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN iso INTEGER")
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN exposure_bias REAL")
        }
        migrator.registerMigration("v17: detail layouts of textured photos (pipeline 8)") { db in
            // Pipeline 8's 64×64 gray levels of photos whose 32×32 thumbnail misstates their
            // windows (`DetailLayout`, `Features.detail`). Which photos those are only a decode
            // tells, so no row is stamped 8 here: the next scan analyses every row of an
            // earlier pipeline again, as for pipelines 3 to 6. NULL for every other photo.
            try db.execute(sql: "ALTER TABLE photo_features ADD COLUMN detail BLOB")
        }
        migrator.registerMigration("v18: the pHash of each frame turned a quarter turn") { db in
            // `TurnedFrame.pHash`, worked out from the stored thumbnail (no analysis again):
            // what a copy whose pixels were turned 90° is found by. Stored rows get theirs
            // before the next grouping (`Migrations+DerivedHashes`), not here: v19 notes them.
            // (Until v19 this migration noted them itself, in `turned_hashes_pending`, which
            // v19 drops.)
            try db.execute(sql: "ALTER TABLE photo_features ADD COLUMN turned_phash INTEGER")
        }
        migrator.registerMigration("v19: the pHash of each frame's centre square") { db in
            // `CentreSquare.pHash`, from the stored thumbnail and the frame's size: what a copy
            // cropped to a square is found by. Stored rows get it, and the turned frame's hash
            // if they wait for it still, before the next grouping (`Migrations+DerivedHashes`).
            try db.execute(sql: "ALTER TABLE photo_features ADD COLUMN square_phash INTEGER")
            try noteDerivedHashesPending(db)
        }
        return migrator
    }
}
