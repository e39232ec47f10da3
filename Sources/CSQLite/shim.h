#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#if __has_include(<sqlite3.h>)
#include <sqlite3.h>
#else
#error "SQLite headers not found. Debian/Ubuntu: apt-get install libsqlite3-dev. Fedora: dnf install sqlite-devel."
#endif

/* STRICT tables and SQLITE_OPEN_EXRESCODE need 3.37. */
#if SQLITE_VERSION_NUMBER < 3037000
#error "PagedStore needs SQLite 3.37 or newer. Debian/Ubuntu: apt-get install libsqlite3-dev (Debian 12 ships 3.40)."
#endif

/* SQLITE_TRANSIENT is a cast macro, which Swift cannot import. */
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/* sqlite3_db_config() is variadic, which Swift cannot call: this wraps its integer options. */
static inline int csqlite_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

/* sqlite3_config() is variadic too: this wraps SQLITE_CONFIG_MEMSTATUS, which must be set before
   SQLite is initialized (it returns SQLITE_MISUSE afterwards). */
static inline int csqlite_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}

#endif /* CSQLITE_SHIM_H */
