-- dropreferences: ARGV[A] holds slice records packed end to end; each
-- drops one reference, and a slice left with none goes to the dead-slice
-- queue (meta.InodeReplacer.DropReferences).
local packed = ARGV[A]
for p = 1, #packed, SLEN do unref(string.sub(packed, p, p + SLEN - 1)) end
return 1
