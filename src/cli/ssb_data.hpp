// SSB data for `tessera gen ssb` and `tessera bench ssb`: generation with progress on
// stderr, and the check that a database already holds a complete data set.
#pragma once
#include <functional>
#include <string>

#include "gen/ssb_gen.hpp"
#include "main/database.hpp"

namespace tessera::cli {

// "1", "0.05", "10": the scale factor as written in names and messages.
std::string FormatScaleFactor(double sf);

// The default database directory for SF `sf`: data/ssb-sf<sf>.tdb.
std::string DefaultSsbDatabasePath(double sf);

// Progress callback printing "[  1.2 s] message" lines to stderr, timed from its creation.
std::function<void(const std::string&)> StderrProgress();

// True when `db` holds the five SSB tables with the row counts of scale factor `sf`.
bool SsbDatabaseComplete(Database& db, double sf);

// Drops whichever SSB tables `db` holds (left over from an interrupted run).
void DropSsbTables(Database& db);

}  // namespace tessera::cli
