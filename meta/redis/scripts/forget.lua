-- forget: slice ids to drop from the dead-slice queue.
for i = A, #ARGV do
  redis.call('ZREMRANGEBYSCORE', K_DEAD, ARGV[i], ARGV[i])
end
return 1
