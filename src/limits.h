/*
 * limits.h -- every named limit of the daemon, in one place.
 *
 * Header only; any thread. Limits are checked before allocating: an input that is over one of
 * these is refused with a clear error, never truncated silently.
 */
#ifndef BB_LIMITS_H
#define BB_LIMITS_H

/* A limit as a string literal, for messages built at compile time: "at most " BB_STR(BB_URL_MAX). */
#define BB_STR_(x) #x
#define BB_STR(x) BB_STR_(x)

/* WebSocket: largest reassembled message (config max_message_bytes), default and bounds. */
#define BB_WS_MAX_MESSAGE_DEFAULT (16u * 1024 * 1024)
#define BB_WS_MAX_MESSAGE_MIN (64u * 1024)
#define BB_WS_MAX_MESSAGE_MAX (256u * 1024 * 1024)
/* Largest message a WebSocket may send before its hello is accepted (the hello itself fits easily):
 * an unauthenticated peer never makes the daemon buffer more than this. */
#define BB_WS_PRE_HELLO_MAX (8u * 1024)
/* Seconds a new WebSocket has to send hello. */
#define BB_WS_HELLO_TIMEOUT_S 10
/* Idle seconds before the daemon pings, and before it hangs up on a silent peer. */
#define BB_WS_PING_AFTER_S 10
#define BB_WS_HANGUP_AFTER_S 25
/* What we tell the extension to use as its heartbeat period. */
#define BB_WS_HEARTBEAT_S 20
/* Messages queued towards one browser before new calls to it are refused. */
#define BB_WS_MAX_QUEUED 100000
/* Messages written to one browser per writable callback (then the other connections get a turn). */
#define BB_WS_WRITES_PER_CALLBACK 32
/* Browsers connected at once. */
#define BB_MAX_BROWSERS 64
#define BB_HEADLESS_INSTANCES_MAX 8 /* serve --headless N: at most this many managed Chromiums */
#define BB_POOL_SESSIONS_MAX 1024   /* sessions remembered on their headless instance (the oldest is forgotten) */
#define BB_POOL_KEY_MAX 80          /* a session key ("http:" + a 64-character name, "mcp:" + 32 hex) */
#define BB_MCPRELAY_CALLS_MAX 64   /* tool calls the stdio relay keeps in flight at once (more wait their turn) */

/* HTTP: largest request body (config max_body_bytes). */
#define BB_HTTP_MAX_BODY_DEFAULT (1u * 1024 * 1024)
#define BB_HTTP_MAX_BODY_MIN 1024u
#define BB_HTTP_MAX_BODY_MAX (64u * 1024 * 1024)
/* Connections the HTTP listener holds at once (each waiting call is one). */
#define BB_HTTP_MAX_CONNECTIONS 20000
/* Descriptors kept free of client connections (database, browsers, epoll, logs, Chromium); the HTTP
 * listener takes at most half of the rest, FastCGI a quarter, and never fewer than these. */
#define BB_FD_RESERVE 256
#define BB_HTTP_MIN_CONNECTIONS 32
#define BB_FCGI_MIN_CONNECTIONS 16
/* Seconds a new connection has to send its request line and headers (Slowloris). */
#define BB_HTTP_HEADER_TIMEOUT_S 10
/* Idle seconds before an HTTP keep-alive connection is closed (waiting calls are exempt). */
#define BB_HTTP_IDLE_TIMEOUT_S 60
/* libmicrohttpd's memory per connection. It reads the request line and headers into half of it,
 * so about 3.5 KiB of headers fit (more: 431). Each waiting call holds one; a smaller pool saves
 * little resident memory (pages are touched only at its two ends) and halves the header room. */
#define BB_HTTP_CONN_MEMORY 8192u

/*
 * FastCGI (see docs/fastcgi.md): connections served at once (behind nginx each waiting call holds
 * one; poll() is linear in them), requests in progress over all of them (what FCGI_MAX_REQS
 * reports), and connections the kernel queues unaccepted while the responder is full.
 */
#define BB_FCGI_MAX_CONNECTIONS 4096
#define BB_FCGI_MAX_REQUESTS 8192
#define BB_FCGI_BACKLOG 1024
/* Largest FCGI_PARAMS stream of one request: the CGI variables plus every HTTP header. */
#define BB_FCGI_MAX_PARAMS_BYTES (64u * 1024)
/* Idle seconds before a FastCGI connection with no call waiting is closed. */
#define BB_FCGI_IDLE_TIMEOUT_S 60
/* Bytes queued towards one FastCGI connection before it is read no further and its streams pause. */
#define BB_FCGI_OUT_HIGH (256u * 1024)

/* Tool calls. */
#define BB_CALL_TIMEOUT_DEFAULT_MS 30000
#define BB_CALL_TIMEOUT_MIN_MS 100
#define BB_CALL_TIMEOUT_MAX_MS 600000
#define BB_CALLS_MAX_IN_FLIGHT 50000
/* Tool parameters (the schemas of GET /api/tools are built from these). */
#define BB_TARGET_MAX 2000       /* a ref, selector or description of an element; wait_for's text */
#define BB_TYPED_TEXT_MAX 100000 /* text typed into a field, a prompt's answer */
#define BB_KEY_NAME_MAX 32       /* a KeyboardEvent.key name */
#define BB_SCROLL_MAX_PX 100000
#define BB_WAIT_DEFAULT_MS 10000 /* wait_for: how long the browser waits */
#define BB_WAIT_MAX_MS 120000
#define BB_TAB_ID_MAX 2147483647
/* browser_fill_form: fields per call. browser_resize: the window's width and height, in pixels. */
#define BB_FORM_FIELDS_MAX 100
#define BB_SELECT_VALUES_MAX 100 /* browser_select_option's values: the options of one multiple select */
#define BB_WINDOW_MIN_PX 200
#define BB_WINDOW_MAX_PX 10000

/* browser_upload_file (upload.c): directories the user may list (config upload_dir), files per call,
 * the longest path, bytes per file and per call. The files of one call also fit, as base64, in one
 * WebSocket message (max_message_bytes) with this much room left for the rest of the command. */
#define BB_UPLOAD_DIRS_MAX 16
#define BB_UPLOAD_FILES_MAX 20
#define BB_UPLOAD_PATH_MAX 4096
#define BB_UPLOAD_FILE_MAX (10u * 1024 * 1024)
#define BB_UPLOAD_TOTAL_MAX (10u * 1024 * 1024)
#define BB_UPLOAD_MESSAGE_RESERVE (16u * 1024)
/* Uploads in progress at once (each holds its files, base64, until the browser has them). */
#define BB_UPLOAD_CALLS_MAX 4

/*
 * Observation tools: browser_find, browser_console_messages, browser_network_requests and
 * browser_screenshot. The extension uses these same figures: extension/build.mjs turns every
 * `#define BB_NAME <integer>` of this file into the module that extension/src/shared/limits.js
 * re-exports, so each is written once, here.
 */
#define BB_FIND_LIMIT_DEFAULT 20     /* browser_find: matches answered */
#define BB_FIND_LIMIT_MAX 200
#define BB_FIND_LINE_MAX 300         /* characters of a match's line in the answer */
#define BB_CONSOLE_MAX_ENTRIES 500   /* console messages kept per document (frame); oldest dropped */
#define BB_CONSOLE_MAX_CHARS 262144  /* characters of console messages kept per document */
#define BB_CONSOLE_MESSAGE_MAX 2000  /* characters of one console message (longer ones are cut) */
#define BB_CONSOLE_LIMIT_DEFAULT 100 /* browser_console_messages: messages answered */
#define BB_NETWORK_MAX_ENTRIES 500   /* requests kept per document (frame); oldest dropped */
#define BB_NETWORK_LIMIT_DEFAULT 100 /* browser_network_requests: requests answered */
#define BB_NETWORK_FILTER_MAX 500    /* its filter (a part of the URL) */
#define BB_NETWORK_URL_MAX 2000      /* characters of a request's URL in the answer */
#define BB_SCREENSHOT_MAX_WIDTH_DEFAULT 1280 /* the default JPEG is scaled down to this width */
#define BB_SCREENSHOT_WIDTH_MAX 16384        /* max_width's bound (and a canvas's) */
#define BB_SCREENSHOT_QUALITY_DEFAULT 80     /* JPEG quality */
#define BB_SCREENSHOT_FULL_HEIGHT_MAX 16384  /* CSS pixels of a full-page capture (more is cut) */
#define BB_SCREENSHOT_HASH_TABS 64           /* tabs whose last screenshot's hash is kept */
#define BB_MARKS_MAX 300                     /* Set of Marks: elements boxed in one image */

/* Lean answers (src/mddiff.c, src/pageview.c): the line diff of two pages gives up past this many
 * lines in either page or this many lines removed plus added (its working memory grows with the
 * square of the latter: about 2 MB at the cap), and the whole page is sent instead. */
#define BB_MDDIFF_LINES_MAX 1000000
#define BB_MDDIFF_EDITS_MAX 1000
/* ... and past this many steps of work (diagonals tried plus lines compared: a few tens of ms),
 * however few the edits, so that a long page with changes spread over it costs little. */
#define BB_MDDIFF_WORK_MAX 20000000u
/* The last page each caller received per tab, kept to answer with what changed: at most this many
 * (caller, browser, tab) entries and this many Markdown bytes in all; the least recently used go
 * first. A page larger than the byte budget is not kept (the next answer is the whole page). */
#define BB_PAGEVIEW_ENTRIES_MAX 512
#define BB_PAGEVIEW_BYTES_MAX (64u * 1024 * 1024)
/* A page's document id (pageInfoUpdate.documentId, made by the content script). */
#define BB_DOCUMENT_ID_MAX 64
/* browser_get_page's paging: offset and max_chars, in characters (Unicode code points). */
#define BB_PAGE_CHARS_MAX 100000000

/* Identifiers and strings that come from peers. */
#define BB_CLIENT_ID_MAX 64
#define BB_SHORT_STRING_MAX 256
#define BB_URL_MAX 8192
#define BB_TITLE_MAX 4096
#define BB_TABS_MAX 1000
/* Characters of a page's URL and title quoted in a call's summary sentence. */
#define BB_SUMMARY_URL_MAX 300
#define BB_SUMMARY_TITLE_MAX 120

/* History. */
#define BB_HISTORY_LIMIT_DEFAULT 50
#define BB_HISTORY_LIMIT_MAX 500
#define BB_QUERY_MAX 1024
#define BB_HISTORY_OFFSET_MAX 100000 /* ?offset= of a relevance-ordered search */
/* Page bytes queued for the database above which browsers are not read from, and below which
 * reading resumes: a flood of pages meets TCP backpressure instead of growing memory. */
#define BB_STORE_BACKLOG_HIGH (64u * 1024 * 1024)
#define BB_STORE_BACKLOG_LOW (16u * 1024 * 1024)
#define BB_STORE_BACKLOG_CHECK_MS 20
/* Rows written per transaction, at most, by the store thread's group commit. */
#define BB_STORE_BATCH_MAX 512
/* While the database cannot be written (locked by another process, disk full, file moved), rows
 * are kept and retried with backoff (from the first to the last figure, in ms); a row no call
 * waits on any more is given up, with a log line, this long after it arrived. */
#define BB_STORE_RETRY_FIRST_MS 5
#define BB_STORE_RETRY_MAX_MS 200
#define BB_STORE_KEEP_MS 120000
/* At shutdown, how long rows still queued are retried before they are given up. */
#define BB_STORE_SHUTDOWN_RETRY_MS 5000
/* A reader that keeps the WAL from being checkpointed this long is logged (once per episode). */
#define BB_STORE_READER_WARN_MS 5000
/* The WAL file is cut back to this size whenever it starts over (PRAGMA journal_size_limit). */
#define BB_STORE_WAL_LIMIT_BYTES (16 * 1024 * 1024)
/* Threads that answer history reads off the event loop. */
#define BB_STORE_READ_THREADS 2
/* Visits: the store thread keeps the newest capture of this many tabs in memory (the least recently
 * captured tab makes room), and a capture continues its tab's visit only if the tab's previous
 * capture is among the last BB_STORE_VISIT_WINDOW captures (by id); a tab it does not hold is
 * looked up no further back than that, since captures have no index by tab. */
#define BB_STORE_TAB_CACHE 256
#define BB_STORE_VISIT_WINDOW 10000

/* Unix socket of the HTTP API: the longest path sockaddr_un holds (with its NUL), and the backlog. */
#define BB_UNIX_PATH_MAX 108
#define BB_UNIX_BACKLOG 128

/* History retention (config retention_days, retention_pages; 0 means no limit). */
#define BB_RETENTION_DAYS_DEFAULT 90
#define BB_RETENTION_PAGES_DEFAULT 100000
#define BB_RETENTION_MAX 1000000000L

/* Config file. */
#define BB_CONFIG_LINE_MAX 4096
#define BB_CONFIG_MAX_ORIGINS 32
/* Longest allow_origin or allow_host value, and longest socket path after fastcgi's "unix:". */
#define BB_CONFIG_ORIGIN_MAX 200
#define BB_FCGI_UNIX_PATH_MAX 95
/* How long the CLI waits for answers that are not tool calls (a login code). */
#define BB_CLIENT_QUICK_TIMEOUT_MS 10000

/* Dashboard sessions and live-event subscribers. */
#define BB_SESSIONS_MAX 64
#define BB_EVENT_SUBSCRIBERS_MAX 64
#define BB_EVENT_QUEUE_MAX (4u * 1024 * 1024)
#define BB_EVENT_HEARTBEAT_S 5 /* also how often a waiting MCP call sends progress */
/* One-time dashboard login codes: random bytes each, outstanding at once, seconds each is valid. */
#define BB_LOGIN_CODE_BYTES 16
#define BB_LOGIN_CODES_MAX 16
#define BB_LOGIN_CODE_TTL_S 300

/* Agent sessions (session.h): how many at once (revoked and declined ones are remembered for a
 * session_ttl too), tabs each owns, calls each may have waiting for approval, the idle time after
 * which one expires (session_ttl, seconds), and its bounds. */
#define BB_AGENT_SESSIONS_MAX 256
#define BB_SESSION_PAGES_MAX 32
#define BB_SESSION_WAITERS_MAX 64
#define BB_SESSION_TTL_DEFAULT_S 1800
#define BB_SESSION_TTL_MIN_S 10
#define BB_SESSION_TTL_MAX_S (7L * 24 * 3600)
#define BB_SESSION_NAME_MAX 64

#endif
