"""Looking after a store: doctor, maintain, consolidation, census and quality."""
