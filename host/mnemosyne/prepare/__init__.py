"""What a context needs, made before it is asked for, and kept between builds: the units of texts split by a
worker process beside the host or a forked helper, handed ahead while a save runs, stored in the archive and
read back, and what a host keeps in memory of them. The context engine (context/) builds; this package
prepares and keeps, driven by the service layer."""
