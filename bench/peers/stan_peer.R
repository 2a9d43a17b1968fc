# The Stan peer: rstan's gqs (standalone generated quantities) over the same
# posterior draws and data as aimz-run.
#
#   Rscript stan_peer.R compile MODEL CACHE_DIR RESULT.json
#   Rscript stan_peer.R run MODEL CACHE_DIR RESULT.json DATA_DIR N DRAWS
#                       MODE SUBSET.bin M
#
# MODEL is linreg, hier or mlp (bench/peers/stan/MODEL.stan); MODE is pred
# or ll. `compile` builds the model once and caches it as an .rds named by
# the hash of the program (a fresh file name: rstan reuses a stale .rds
# next to a .stan of the same name); `run` loads it, runs gqs and writes
# the first M observations of every draw to SUBSET.bin (float64, row-major
# draws x M) for bench/harness.py to check against aimz-run's store.
#
# Setup facts for Debian's rstan 2.21: stan_model needs
# boost_lib = "/usr/include" (r-cran-bh is a placeholder); plain -O3 (the
# Makevars file in CACHE_DIR, given by R_MAKEVARS_USER), since -march=native
# crashes in gqs.

args <- commandArgs(trailingOnly = TRUE)
t_start <- proc.time()[["elapsed"]]
cmd <- args[1]
model <- args[2]
cache_dir <- args[3]
result_path <- args[4]

suppressPackageStartupMessages(library(rstan))
rstan_options(auto_write = FALSE)

script_dir <- local({
  a <- commandArgs(trailingOnly = FALSE)
  f <- sub("^--file=", "", a[grep("^--file=", a)])
  dirname(normalizePath(f))
})

write_json <- function(path, lst) {
  fmt <- function(v) {
    if (is.character(v)) sprintf("\"%s\"", gsub("\"", "'", v))
    else if (is.logical(v)) tolower(as.character(v))
    else format(v, digits = 10)
  }
  body <- paste(sprintf("\"%s\": %s", names(lst), sapply(lst, fmt)),
                collapse = ", ")
  writeLines(paste0("{", body, "}"), path)
}

# ---------------------------------------------------------------- compile
stan_src <- file.path(script_dir, "stan", paste0(model, ".stan"))
code <- paste(readLines(stan_src), collapse = "\n")
hash <- substr(tools::md5sum(stan_src)[[1]], 1, 12)
dir.create(cache_dir, showWarnings = FALSE, recursive = TRUE)
rds <- file.path(cache_dir, sprintf("%s_%s.rds", model, hash))
meta <- file.path(cache_dir, sprintf("%s_%s.compile_s", model, hash))

if (cmd == "compile") {
  if (file.exists(rds) && file.exists(meta)) {
    write_json(result_path, list(model = model, cached = TRUE,
                                 compile_s = as.numeric(readLines(meta))))
    quit(status = 0)
  }
  t0 <- proc.time()[["elapsed"]]
  sm <- stan_model(model_code = code, model_name = paste0(model, "_", hash),
                   boost_lib = "/usr/include", auto_write = FALSE,
                   save_dso = TRUE)
  dt <- proc.time()[["elapsed"]] - t0
  saveRDS(sm, rds)
  writeLines(format(dt, digits = 6), meta)
  write_json(result_path, list(model = model, cached = FALSE,
                               compile_s = dt))
  quit(status = 0)
}

# -------------------------------------------------------------------- run
data_dir <- args[5]
N <- as.integer(args[6])
D <- as.integer(args[7])
mode <- args[8]
subset_path <- args[9]
M <- as.integer(args[10])

# A minimal .npy reader (format 1.0/2.0, little-endian <f4, <i4, <f8,
# C order), enough for the files bench/harness.py writes.
read_npy <- function(path) {
  con <- file(path, "rb")
  on.exit(close(con))
  magic <- readBin(con, "raw", 6)
  ver <- readBin(con, "integer", 2, size = 1)
  hlen <- if (ver[1] == 1) readBin(con, "integer", 1, size = 2,
                                   signed = FALSE, endian = "little")
          else readBin(con, "integer", 1, size = 4, endian = "little")
  header <- rawToChar(readBin(con, "raw", hlen))
  descr <- sub(".*'descr': *'([^']*)'.*", "\\1", header)
  shape_s <- sub(".*'shape': *\\(([^)]*)\\).*", "\\1", header)
  shape <- as.numeric(strsplit(gsub(" ", "", shape_s), ",")[[1]])
  shape <- shape[!is.na(shape)]
  count <- if (length(shape)) prod(shape) else 1
  v <- switch(descr,
              "<f4" = readBin(con, "double", count, size = 4,
                              endian = "little"),
              "<f8" = readBin(con, "double", count, size = 8,
                              endian = "little"),
              "<i4" = readBin(con, "integer", count, size = 4,
                              endian = "little"),
              stop("unsupported dtype ", descr))
  if (length(shape) >= 2) {
    # C order: the last axis varies fastest.
    v <- aperm(array(v, dim = rev(shape)))
  }
  v
}

read_npz <- function(path) {
  tmp <- tempfile("npz")
  dir.create(tmp)
  on.exit(unlink(tmp, recursive = TRUE))
  files <- utils::unzip(path, exdir = tmp)
  out <- list()
  for (f in files) out[[sub("\\.npy$", "", basename(f))]] <- read_npy(f)
  out
}

# Draws as gqs wants them: one column per scalar, named like Stan's
# flattening (column-major: "w1[i,j]" with i fastest).
draws_matrix <- function(post) {
  cols <- list()
  nm <- character(0)
  for (site in names(post)) {
    a <- post[[site]]
    d <- dim(a)
    if (is.null(d)) {
      cols[[length(cols) + 1]] <- matrix(a, ncol = 1)
      nm <- c(nm, site)
    } else if (length(d) == 2) {
      cols[[length(cols) + 1]] <- a
      nm <- c(nm, sprintf("%s[%d]", site, seq_len(d[2])))
    } else {
      m <- matrix(a, nrow = d[1])  # R's column-major: i fastest, then j
      cols[[length(cols) + 1]] <- m
      ij <- expand.grid(i = seq_len(d[2]), j = seq_len(d[3]))
      nm <- c(nm, sprintf("%s[%d,%d]", site, ij$i, ij$j))
    }
  }
  m <- do.call(cbind, cols)
  colnames(m) <- nm
  m
}

sm <- readRDS(rds)
t0 <- proc.time()[["elapsed"]]
post <- read_npz(file.path(data_dir, sprintf("post_%s_%d.npz", model, D)))
if (model == "linreg") {
  X <- read_npy(file.path(data_dir, sprintf("linreg_X_%d.npy", N)))
  y <- if (mode == "ll")
    read_npy(file.path(data_dir, sprintf("linreg_y_%d.npy", N)))
  else rep(0, N)
  data <- list(N = N, K = ncol(X), X = X, y = y, ll = as.integer(mode == "ll"))
  site <- if (mode == "ll") "log_lik" else "y_rep"
} else if (model == "hier") {
  x <- read_npy(file.path(data_dir, sprintf("hier_x_%d.npy", N)))
  g <- read_npy(file.path(data_dir, sprintf("hier_g_%d.npy", N)))
  G <- ncol(post[["a"]])
  data <- list(N = N, G = G, x = x, g = g + 1L)
  site <- "y_rep"
} else {
  X <- read_npy(file.path(data_dir, sprintf("mlp_X_%d.npy", N)))
  data <- list(N = N, Din = ncol(X), H = ncol(post[["b1"]]), X = X)
  site <- "y_rep"
}
draws <- draws_matrix(post)
t_setup <- proc.time()[["elapsed"]] - t0

t0 <- proc.time()[["elapsed"]]
fit <- gqs(sm, data = data, draws = draws, seed = 1L)
t_gqs <- proc.time()[["elapsed"]] - t0

t0 <- proc.time()[["elapsed"]]
out <- as.matrix(fit, pars = site)   # draws x N
t_extract <- proc.time()[["elapsed"]] - t0
stopifnot(nrow(out) == D, ncol(out) == N)

con <- file(subset_path, "wb")
writeBin(as.vector(t(out[, seq_len(min(M, N)), drop = FALSE])), con,
         size = 8, endian = "little")
close(con)
write_json(result_path, list(model = model, mode = mode, setup_s = t_setup,
                             gqs_s = t_gqs, extract_s = t_extract,
                             total_s = proc.time()[["elapsed"]] - t_start))
