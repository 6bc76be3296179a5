package report

// MarkSameBinaries sets CommitDetails.SameBinaryAs from binaryOf, each
// measured commit's server binary digest (commits missing from it or with
// an empty digest are left alone). Of the measured commits sharing a
// digest, the first in Result.Commits (the order measured) owns the runs;
// every other one is marked as sharing them. Details entries are added
// for commits that have none.
func (in *Input) MarkSameBinaries(binaryOf map[string]string) {
	owner := map[string]string{} // digest -> first commit measured with it
	at := map[string]int{}       // hash -> index in Details
	for i, d := range in.Details {
		at[d.Hash] = i
	}
	for _, m := range in.Result.Commits {
		h := m.Commit.Hash
		bin := binaryOf[h]
		if bin == "" {
			continue
		}
		first, ok := owner[bin]
		if !ok {
			owner[bin] = h
			continue
		}
		if first == h {
			continue
		}
		i, ok := at[h]
		if !ok {
			in.Details = append(in.Details, CommitDetails{Hash: h})
			i = len(in.Details) - 1
			at[h] = i
		}
		in.Details[i].SameBinaryAs = first
	}
}

// sameBinaryNote is the observation note of a commit sharing another's
// binary, "" for one with its own.
func sameBinaryNote(d CommitDetails) string {
	if d.SameBinaryAs == "" {
		return ""
	}
	return "same binary as " + short(d.SameBinaryAs) + ": shared runs"
}
