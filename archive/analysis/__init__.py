"""What a log says about itself: the quality report, flurries, the load
profile and the capacity rule's analysis, each with its plot."""
