//! `markerspec-cuda-probe`: the isolated child that [`markerspec_cuda::Detector::detect`] runs.
//! It loads the driver libraries, prints one JSON report line, and exits.

fn main() -> std::process::ExitCode {
    markerspec_cuda::probe_main()
}
