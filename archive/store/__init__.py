"""The archive file: opening it (lock, transactions), the gate of user
queries, ingest of SWF files into its tables, the catalog, and export."""
